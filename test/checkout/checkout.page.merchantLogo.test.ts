/**
 * The merchant's uploaded logo in the hosted checkout's header (docs/decisions.md §26.23), in Chromium: served by
 * Paygate from the page's own origin, so the page's CSP (img-src 'self') loads it, and no request leaves the origin.
 * axe and screenshots at 1280 and 375 px.
 */
import assert from 'node:assert/strict';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { pngLogo } from '../dashboard/logoFiles.js';
import { eventually } from '../helpers/wait.js';
import { assertOnlyOwnOrigin, startCheckoutPage, type CheckoutPageHarness } from './page.js';

describe('hosted checkout page: the merchant logo', () => {
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('shows the uploaded logo in the header, loaded from the page’s own origin', async () => {
    const { iconUrl } = await setMerchantLogo(h.runtime, h.account.merchantId, pngLogo(80, 80).toString('base64'));
    const paymentId = await h.payment();
    const { page, requests } = await h.open(paymentId);
    await h.view(page, 'open');
    const logo = page.locator(`img[src="${iconUrl}"]`);
    await eventually('the logo to be drawn', () =>
      logo.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 80),
    );
    assert.ok(
      requests.some((url) => url === `${h.server.url}${iconUrl}`),
      'the logo was requested from this server',
    );
    assertOnlyOwnOrigin(requests, h.server.url);
    await h.capture(page, 'merchant-logo');
  });
});
