/**
 * The data-collection form in a real headless Chromium, used as a buyer would: a wallet page on another origin opens
 * it (popup, frame, or a native web view's bridges), the buyer types into the inputs the page built from the JSON
 * Schema, the browser refuses invalid data without sending it, and the wallet hears IC_COMPLETE or IC_ERROR.
 */
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';
import { readCollectedData } from '../../server/src/collect/index.js';
import { findCollectedData } from '../../server/src/db/queries/collectedData.js';
import { launchChromium, receivedMessages, startWalletSite, type WalletSite } from './browser.js';
import { startCollectHarness, type CollectHarness } from './harness.js';

type Surface = Page | Frame | FrameLocator;

describe('collect.form [browser]', function () {
  let h: CollectHarness;
  let browser: Browser;
  let site: WalletSite;
  let context: BrowserContext;
  /** Console errors and uncaught page errors of every page: a CSP refusal shows up here. */
  let problems: string[];
  /** POSTs the form pages sent. */
  let posts: string[];

  before(async () => {
    [h, browser, site] = await Promise.all([startCollectHarness(), launchChromium(), startWalletSite()]);
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await h?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext();
    problems = [];
    posts = [];
    context.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    context.on('weberror', (e) => problems.push(e.error().message));
    context.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
  });
  afterEach(async () => {
    await context.close();
  });

  /** The wallet's page, and the form it opened with window.open. */
  async function openFromWallet(url: string): Promise<{ wallet: Page; form: Page }> {
    const wallet = await context.newPage();
    await wallet.goto(site.url);
    const [form] = await Promise.all([
      wallet.waitForEvent('popup'),
      wallet.evaluate((u) => {
        window.open(u, '_blank');
      }, url),
    ]);
    await form.waitForLoadState();
    return { wallet, form };
  }

  async function fillValid(form: Surface): Promise<void> {
    await form.getByLabel('Full name').fill('  Ada Lovelace ');
    await form.getByLabel('Date of birth').fill('1815-12-10');
    await form.getByLabel('Place of residence (country)').fill('GB');
    await form.getByLabel('Place of residence (address)').fill('12 St James Square, London');
    await form.getByLabel('Terms of service').check();
  }

  const expected = {
    fullName: 'Ada Lovelace',
    dob: '1815-12-10',
    porCountry: 'GB',
    porAddress: '12 St James Square, London',
    tosConfirmed: true,
  };

  const errorOf = (form: Page, name: string) => form.locator(`#error-${name}`);

  it('stores what the buyer typed, sealed, and tells the opener IC_COMPLETE', async () => {
    const id = await h.createPayment();
    const { wallet, form } = await openFromWallet(h.formUrl(id));
    await fillValid(form);
    await form.getByRole('button', { name: 'Continue' }).click();

    const messages = await receivedMessages(wallet);
    assert.deepEqual(messages, [{ origin: new URL(h.server.url).origin, data: { type: 'IC_COMPLETE' } }]);
    assert.equal(await form.getByRole('heading', { name: 'Thank you' }).isVisible(), true);
    assert.equal(await form.locator('#form').isVisible(), false);

    const row = await findCollectedData(h.runtime.db.knex, id);
    assert.ok(row);
    for (const plain of ['Ada Lovelace', 'Lovelace', '1815-12-10', 'St James']) assert.ok(!row.sealed.includes(plain));
    assert.deepEqual(await readCollectedData(h.runtime, id), expected);
    assert.equal(posts.length, 1);
    assert.deepEqual(problems, []);
  });

  it('builds its inputs from the schema: labels, a date input, a checkbox, required marks, length limits', async () => {
    const id = await h.createPayment();
    const { form } = await openFromWallet(h.formUrl(id));
    const inputs = await form.locator('#fields input').evaluateAll((els) =>
      (els as HTMLInputElement[]).map((e) => ({
        name: e.name,
        type: e.type,
        required: e.getAttribute('aria-required') === 'true',
        maxLength: e.maxLength,
      })),
    );
    assert.deepEqual(inputs, [
      { name: 'fullName', type: 'text', required: true, maxLength: -1 },
      { name: 'dob', type: 'date', required: true, maxLength: -1 },
      { name: 'pobCountry', type: 'text', required: false, maxLength: -1 },
      { name: 'pobAddress', type: 'text', required: false, maxLength: 200 },
      { name: 'porCountry', type: 'text', required: false, maxLength: -1 },
      { name: 'porAddress', type: 'text', required: false, maxLength: 200 },
      { name: 'tosConfirmed', type: 'checkbox', required: true, maxLength: -1 },
    ]);
    assert.match(await form.locator('#help-pobCountry').innerText(), /ISO 3166-1 alpha-2/);
    assert.deepEqual(problems, []);
  });

  it('refuses invalid data in the browser, field by field, without sending anything', async () => {
    const id = await h.createPayment();
    const { wallet, form } = await openFromWallet(h.formUrl(id));
    const submit = form.getByRole('button', { name: 'Continue' });

    // Nothing at all.
    await submit.click();
    assert.equal(await errorOf(form, 'fullName').innerText(), 'Required.');
    assert.equal(await errorOf(form, 'dob').innerText(), 'Required.');
    assert.equal(await errorOf(form, 'tosConfirmed').innerText(), 'Check this box to continue.');
    assert.equal(await form.locator('#in-fullName').getAttribute('aria-invalid'), 'true');

    // Everything but an address pair.
    await form.getByLabel('Full name').fill('Ada Lovelace');
    await form.getByLabel('Date of birth').fill('1815-12-10');
    await form.getByLabel('Terms of service').check();
    await submit.click();
    assert.equal(await errorOf(form, 'fullName').isVisible(), false);
    assert.equal(
      await form.locator('#form-error').innerText(),
      'Give Place of birth (country) and Place of birth (city and state), or Place of residence (country) and Place of residence (address).',
    );
    assert.equal(
      await errorOf(form, 'pobCountry').innerText(),
      'Required, unless you give Place of residence (country) and Place of residence (address).',
    );

    // Half a pair: the other half is asked for.
    await form.getByLabel('Place of residence (address)').fill('London');
    await submit.click();
    assert.equal(await errorOf(form, 'porCountry').innerText(), 'Required with Place of residence (address).');
    assert.equal(await errorOf(form, 'pobCountry').isVisible(), false);

    // A country that is not two upper-case letters.
    await form.getByLabel('Place of residence (country)').fill('gbr');
    await submit.click();
    assert.match(await errorOf(form, 'porCountry').innerText(), /^Not in the expected form\. Country of residence/);
    assert.equal(await form.locator('#form-error').innerText(), 'Correct the fields marked above.');

    assert.deepEqual(posts, [], 'nothing was sent');
    assert.equal(await findCollectedData(h.runtime.db.knex, id), null);

    // Corrected, it goes through.
    await form.getByLabel('Place of residence (country)').fill('GB');
    await submit.click();
    assert.deepEqual(
      (await receivedMessages(wallet)).map((m) => m.data),
      [{ type: 'IC_COMPLETE' }],
    );
    assert.equal(posts.length, 1);
    assert.deepEqual(problems, []);
  });

  it('tells the opener IC_ERROR when the server refuses for good (the payment was cancelled meanwhile)', async () => {
    const id = await h.createPayment();
    const { wallet, form } = await openFromWallet(h.formUrl(id));
    await fillValid(form);
    assert.equal((await h.call('POST', `/v1/gateway/payment/${id}/cancel`)).status, 200);
    await form.getByRole('button', { name: 'Continue' }).click();

    const [message] = await receivedMessages(wallet);
    const text = `Payment ${id} is cancelled; data can be given only while it requires action.`;
    assert.deepEqual(message!.data, { type: 'IC_ERROR', error: text, message: text });
    assert.equal(await form.locator('#failed-text').innerText(), text);
    assert.equal(await form.locator('#form').isVisible(), false);
    assert.equal(await findCollectedData(h.runtime.db.knex, id), null);
    // The refused POST is the only console error: Chromium reports the 409 itself.
    assert.ok(
      problems.every((p) => /409/.test(p)),
      problems.join('\n'),
    );
  });

  it('tells the opener IC_ERROR at once when the link does not open (a wrong token)', async () => {
    const id = await h.createPayment();
    const forged = h.formUrl(id).replace(/t=[^&]+/, 't=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const { wallet, form } = await openFromWallet(forged);
    const [message] = await receivedMessages(wallet);
    const text = 'No payment matches this data-collection link.';
    assert.deepEqual(message!.data, { type: 'IC_ERROR', error: text, message: text });
    assert.equal(await form.locator('#failed-text').innerText(), text);
    assert.equal(await form.locator('#fields input').count(), 0);
    assert.deepEqual(posts, []);
  });

  it('framed by the wallet page, it tells its parent', async () => {
    const id = await h.createPayment();
    const wallet = await context.newPage();
    await wallet.goto(site.url);
    await wallet.evaluate((u) => {
      const frame = document.createElement('iframe');
      frame.src = u;
      document.body.append(frame);
    }, h.formUrl(id));
    const frame = wallet.frameLocator('iframe');
    await fillValid(frame);
    await frame.getByRole('button', { name: 'Continue' }).click();
    assert.deepEqual(
      (await receivedMessages(wallet)).map((m) => m.data),
      [{ type: 'IC_COMPLETE' }],
    );
    assert.deepEqual(await readCollectedData(h.runtime, id), expected);
    assert.deepEqual(problems, []);
  });

  it("in a native web view, posts to the bridge it finds (React Native, iOS, Android) and takes WalletConnect's prefill", async () => {
    // A string, not a function: tsx would wrap a named inner function in a helper the page does not have.
    await context.addInitScript({
      content: `
        window.bridgeCalls = [];
        function record(bridge) { return function (message) { window.bridgeCalls.push({ bridge: bridge, message: message }); }; }
        window.ReactNativeWebView = { postMessage: record('react-native') };
        window.webkit = { messageHandlers: { payDataCollectionComplete: { postMessage: record('ios') } } };
        window.AndroidWallet = { onDataCollectionComplete: record('android') };
      `,
    });
    const id = await h.createPayment();
    const prefill = Buffer.from(
      JSON.stringify({ fullName: 'Zoë Prefilled', dob: '1990-01-15', tosConfirmed: true }),
    ).toString('base64');
    const form = await context.newPage();
    await form.goto(`${h.formUrl(id)}&prefill=${prefill}`);
    assert.equal(await form.getByLabel('Full name').inputValue(), 'Zoë Prefilled');
    assert.equal(await form.getByLabel('Date of birth').inputValue(), '1990-01-15');
    // Consent is never prefilled.
    assert.equal(await form.getByLabel('Terms of service').isChecked(), false);

    await form.getByLabel('Place of birth (country)').fill('FR');
    await form.getByLabel('Place of birth (city and state)').fill('Lyon');
    await form.getByLabel('Terms of service').check();
    await form.getByRole('button', { name: 'Continue' }).click();
    await form.waitForFunction(() => (window as unknown as { bridgeCalls: unknown[] }).bridgeCalls.length === 3);
    const calls = await form.evaluate(() => (window as unknown as { bridgeCalls: unknown[] }).bridgeCalls);
    assert.deepEqual(calls, [
      { bridge: 'react-native', message: '{"type":"IC_COMPLETE"}' },
      { bridge: 'ios', message: { type: 'IC_COMPLETE' } },
      { bridge: 'android', message: '{"type":"IC_COMPLETE"}' },
    ]);
    assert.deepEqual(await readCollectedData(h.runtime, id), {
      fullName: 'Zoë Prefilled',
      dob: '1990-01-15',
      pobCountry: 'FR',
      pobAddress: 'Lyon',
      tosConfirmed: true,
    });
    assert.deepEqual(problems, []);
  });

  it('left none of the data, and no link token, in the server logs', () => {
    const text = h.logs.text();
    assert.match(text, /"route":"\/collect\/:paymentId"/);
    for (const plain of ['Ada Lovelace', 'Lovelace', '1815-12-10', 'St James', 'Zoë', 'Prefilled', 'Lyon', 'prefill']) {
      assert.ok(!text.includes(plain), `the logs hold "${plain}"`);
    }
    assert.ok(!/[?&]t=/.test(text), 'the logs hold a link token');
  });
});
