/**
 * Issue 31 finding 10 in the dashboard: where the payment page names a token or a network it shows the icon shipped
 * with the app beside the name (a drawn data: image, decorative), so the merchant's page, like the checkout, loads no
 * image from elsewhere.
 */
import assert from 'node:assert/strict';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.paymentDetail.icons [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  it('shows the shipped token and network icons beside what was paid and its network', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`);
    await page.getByRole('button', { name: 'Simulate processing', exact: true }).click();
    const processing = page.getByRole('region', { name: 'Processing', exact: true });
    await processing.waitFor();
    const icons = await processing.locator('img[data-token-icon], img[data-network-icon]').evaluateAll((imgs) =>
      imgs.map((img) => ({
        of: img.getAttribute('data-token-icon') ?? img.getAttribute('data-network-icon'),
        drawn:
          (img as HTMLImageElement).src.startsWith('data:image/svg+xml,') &&
          (img as HTMLImageElement).complete &&
          (img as HTMLImageElement).naturalWidth > 0,
        alt: img.getAttribute('alt'),
      })),
    );
    // The token is named twice (what was paid, what settles) and the network once.
    assert.deepEqual([...new Set(icons.map((i) => i.of))].sort(), ['Simulated network', 'TEST'], JSON.stringify(icons));
    assert.ok(
      icons.every((i) => i.drawn && i.alt === ''),
      JSON.stringify(icons),
    );
    await s.review(page, 'payment-icons');
    assert.deepEqual(problems, []);
  });
});
