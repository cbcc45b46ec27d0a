import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogues } from '../../web/src/i18n.js';
import { LANGUAGES, type CheckoutPageConfig } from '../../web/src/pageConfig.js';
import { CHECKOUT_LANGUAGES, checkoutTemplate, pickLanguage } from '../../server/src/hostedCheckout/index.js';

const HTML = `<!doctype html>
<html lang="en">
  <head><title>Paygate checkout</title><!--paygate-config--></head>
  <body><div id="app"></div></body>
</html>`;

function template() {
  const dir = mkdtempSync(join(tmpdir(), 'checkout-dist-'));
  writeFileSync(join(dir, 'checkout.html'), HTML);
  return checkoutTemplate(dir)()!;
}

const config: CheckoutPageConfig = {
  paymentId: 'pay_000000000000000000000000',
  lang: 'fr',
  appId: 'app_test_000000000000000000000000',
  reference: 'order_7',
  payment: null,
  paymentLink: 'https://pay.example/pay/pay_000000000000000000000000',
  solanaPayLink: null,
  chains: [],
  serverTime: 0,
  redirect: {
    successUrl: 'https://shop.example/</script><script>alert(1)</script>',
    errorUrl: 'https://shop.example/',
  },
};

describe('hosted checkout: the page template', () => {
  it('render: a merchant name with $ patterns and markup stays text in the title', () => {
    const html = template().render(config, `A $' B $& <b>&"`);
    assert.match(html, /<title>A \$&#39; B \$&#38; &#60;b&#62;&#38;&#34;<\/title>/);
    assert.match(html, /<html lang="fr">/);
    assert.equal(html.match(/<script type="application\/json" id="paygate-config">/g)?.length, 1);
  });

  it('render: no value in the config block can close its script element', () => {
    const html = template().render(config, 'Shop');
    const block = /<script type="application\/json" id="paygate-config">(.*?)<\/script>/s.exec(html)![1]!;
    assert.doesNotMatch(block, /</);
    assert.deepEqual(JSON.parse(block), config);
  });

  it('a missing build answers null, so the route can say how to build it', () => {
    assert.equal(checkoutTemplate(mkdtempSync(join(tmpdir(), 'checkout-none-')))(), null);
  });

  it('pickLanguage: ?lang= first, then Accept-Language by q, then English', () => {
    assert.equal(pickLanguage('fr', 'en'), 'fr');
    assert.equal(pickLanguage('FR', undefined), 'fr');
    assert.equal(pickLanguage('xx', 'de-DE, fr-CA;q=0.8, en;q=0.5'), 'fr');
    assert.equal(pickLanguage(undefined, 'en;q=0.4, fr;q=0.9'), 'fr');
    assert.equal(pickLanguage(undefined, 'fr;q=0, de'), 'en');
    assert.equal(pickLanguage(['fr'], 'de'), 'en');
  });

  it('the server picks among exactly the catalogue languages, and every catalogue has every message', () => {
    assert.deepEqual([...CHECKOUT_LANGUAGES], [...LANGUAGES]);
    const keys = Object.keys(catalogues.en).sort();
    for (const lang of LANGUAGES) {
      assert.deepEqual(Object.keys(catalogues[lang]).sort(), keys, lang);
      for (const [key, text] of Object.entries(catalogues[lang])) {
        const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
        assert.deepEqual(
          placeholders(text),
          placeholders(catalogues.en[key as keyof typeof catalogues.en]),
          `${lang} ${key}`,
        );
      }
    }
  });
});
