/**
 * Issue 31 finding 15, in the shipped app: at 375 px the payments table scrolled sideways and put each row's link
 * off-screen. Now a row is a card on a narrow screen, every cell (the link too) inside the viewport, and a click
 * anywhere on a row opens its payment, at every width.
 */
import assert from 'node:assert/strict';
import { landsOn } from './browser.js';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.payments.narrow [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  it('at 375 px shows each payment as a card with its link on screen, and a tap on the row opens it', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, '/dashboard/payments', { width: 375 });
    const row = page.locator(`tr[data-payment="${paymentId}"]`);
    await row.waitFor();
    const link = row.getByRole('link');
    const box = (await link.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `the payment's link is on screen: ${JSON.stringify(box)}`);
    const widest = await row
      .locator('td')
      .evaluateAll((cells) => Math.max(...cells.map((c) => c.getBoundingClientRect().right)));
    assert.ok(widest <= 375, `every cell of the row is on screen (right edge ${widest})`);
    await s.review(page, 'payments-narrow');

    // A tap on the amount (not the link) opens the payment.
    await row.locator('td').filter({ hasText: '$12.50' }).click();
    await landsOn(page, `/dashboard/payments/${paymentId}`);
    await page.getByRole('heading', { level: 1 }).filter({ hasText: '$12.50' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
