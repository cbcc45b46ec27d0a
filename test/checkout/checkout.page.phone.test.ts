/**
 * QR codes and phones (issue 31 finding 8): a desktop shows one QR code at a time, for the way to pay the buyer
 * chose; a phone gets "open in wallet" links (`solana:` and EIP-681 URIs) instead of QR codes of the page it is on,
 * and the page stays short at 375 px.
 */
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { Page } from 'playwright-core';
import { useChainSnapshots } from '../helpers/chain.js';
import { eventually } from '../helpers/wait.js';
import { startCheckoutPage, type CheckoutPageHarness } from './page.js';

/** The QR codes a person can see now. */
async function visibleQrCodes(page: Page): Promise<string[]> {
  return page
    .getByRole('img', { name: /QR code/ })
    .evaluateAll((images) =>
      images.filter((i) => (i as HTMLElement).checkVisibility()).map((i) => i.getAttribute('alt') ?? ''),
    );
}

describe('hosted checkout page: QR codes and phones', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('a desktop without a browser wallet shows one QR code at a time, for the way to pay the buyer chose', async () => {
    await h.setMode('collected');
    const paymentId = await h.payment();
    const { page } = await h.open(paymentId);
    await h.view(page, 'open');
    await page.getByTestId('deposits').waitFor();
    await eventually('one QR code, the open deposit entry’s', async () =>
      isDeepStrictEqual(await visibleQrCodes(page), ['QR code to send TUSD on Local chain (anvil)']),
    );
    await page.getByText('Pay with a phone', { exact: true }).click();
    await eventually('one QR code, the payment link’s', async () =>
      isDeepStrictEqual(await visibleQrCodes(page), ['QR code of the payment link']),
    );
    await page.getByRole('button', { name: 'Solana Pay', exact: true }).click();
    // QR codes are drawn after the first paint (their own chunk): wait for the drawing, not for the click.
    await eventually('one QR code, the Solana Pay request’s', async () =>
      isDeepStrictEqual(await visibleQrCodes(page), ['Solana Pay QR code']),
    );
    await page.locator(`[data-chain="eip155:31337"] summary`).click();
    await eventually('one QR code, the deposit entry’s again', async () =>
      isDeepStrictEqual(await visibleQrCodes(page), ['QR code to send TUSD on Local chain (anvil)']),
    );
    await h.accessible(page, 'one QR code');
    await h.capture(page, 'one-qr');
  });

  it('on a phone the page offers solana: and EIP-681 links to open in a wallet instead of QR codes, and the French page at 375 px stays under 1,300 px', async () => {
    await h.setMode('collected');
    const paymentId = await h.payment();
    const { page } = await h.open(paymentId, { width: 375, lang: 'fr' });
    await h.view(page, 'open');
    await page.getByTestId('deposits').waitFor();
    assert.deepEqual(await visibleQrCodes(page), []);
    const walletLinks = () =>
      page
        .getByRole('link')
        .evaluateAll((links) => links.map((l) => l.getAttribute('href') ?? '').filter((u) => /^[a-z]+:[^/]/.test(u)));
    // The open entry (the first network) opens the wallet with an EIP-681 request; the Solana entry with a solana: one.
    assert.ok(
      (await walletLinks()).some((u) => /^ethereum:0x[0-9a-fA-F]{40}@31337\//.test(u)),
      `an EIP-681 link: ${(await walletLinks()).join(' ')}`,
    );
    await page.screenshot({ path: 'test-results/checkout/phone-fr-375.png', fullPage: true });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(height <= 1300, `the French page at 375 px is ${height} px tall`);
    await h.accessible(page, 'the phone page');
    await page.locator(`[data-chain="${h.solana.caip2}"] summary`).click();
    assert.ok(
      (await walletLinks()).some((u) => u.startsWith('solana:')),
      `a solana: link: ${(await walletLinks()).join(' ')}`,
    );
    assert.deepEqual(await visibleQrCodes(page), []);

    await h.setMode('direct');
    const direct = await h.open(await h.payment(), { width: 375, lang: 'fr' });
    await h.view(direct.page, 'open');
    assert.deepEqual(await visibleQrCodes(direct.page), []);
    // No browser wallet: the panel is open, and the Solana Pay transaction request is a link that opens the wallet.
    const request = await direct.page.getByRole('link', { name: 'Ouvrir dans un portefeuille Solana Pay' });
    assert.match((await request.getAttribute('href')) ?? '', /^solana:https?:\/\//);
    await direct.page.screenshot({ path: 'test-results/checkout/phone-fr-direct-375.png', fullPage: true });
    const directHeight = await direct.page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(directHeight <= 1300, `the French direct-mode page at 375 px is ${directHeight} px tall`);
  });
});
