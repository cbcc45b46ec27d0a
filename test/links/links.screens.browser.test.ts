/**
 * Payment links in Chromium against the shipped app (issue 35 §2): an owner creates a donation link on the dashboard's
 * Payment links screen and gets its QR code, copy and download; a buyer opens the link, chooses an amount on the
 * link's page and lands in the hosted checkout with a payment from the link, which the link's "View payments" then
 * lists alone on the Payments screen; a used-up link's page says why. axe
 * (zero serious or critical) and screenshots at 1280 and 375 px for each.
 */
import assert from 'node:assert/strict';
import { captureWidths } from '../helpers/browser.js';
import { createPerson, type Person } from '../dashboard/people.js';
import { SHOTS_DIR, signInThroughPage, startDashboardBrowser, type DashboardBrowser } from '../dashboard/browser.js';

describe('links.screens browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
  });
  after(() => d.close());

  it('an owner creates a donation link and shares it; a buyer chooses an amount and lands in the checkout', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Payment links' }).click();
    await page.getByRole('button', { name: 'Create a link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a payment link' });
    await dialog.getByLabel('What it is for').fill('Support the community radio');
    await dialog.getByLabel('The buyer chooses (donations, tips)').check();
    await dialog.getByLabel('Minimum', { exact: true }).fill('1');
    await dialog.getByLabel('Maximum', { exact: true }).fill('500');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const share = page.getByRole('dialog', { name: 'Share the payment link' });
    const qr = share.getByRole('img', { name: /QR code of the payment link/ });
    await qr.waitFor();
    const url = (await share.locator('p.mono').textContent())!;
    assert.match(url, /\/l\/plink_[0-9A-Za-z]{20}$/);
    const download = share.getByRole('link', { name: 'Download QR code' });
    assert.match((await download.getAttribute('download')) ?? '', /^plink_.*\.svg$/);
    await share.getByRole('button', { name: 'Copy link' }).waitFor();
    await d.capture(page, 'links-share');
    await share.getByRole('button', { name: 'Close' }).click();
    await page.locator('tr', { hasText: 'Support the community radio' }).waitFor();
    await d.capture(page, 'links');

    const buyer = await d.open(new URL(url).pathname);
    await buyer.getByRole('heading', { name: 'Support the community radio' }).waitFor();
    await captureWidths(buyer, SHOTS_DIR, 'link-form');
    await buyer.getByLabel('Amount (USD)').fill('0.50');
    await buyer.getByRole('button', { name: 'Continue to payment' }).click();
    await buyer.getByRole('alert').filter({ hasText: 'Enter an amount from 1.00 to 500.00 USD.' }).waitFor();
    await buyer.getByLabel('Amount (USD)').fill('12.50');
    await buyer.getByRole('button', { name: 'Continue to payment' }).click();
    await buyer.waitForURL(/\/pay\/pay_[0-9A-Za-z]{24}$/);
    const paymentId = /\/pay\/(pay_[0-9A-Za-z]{24})$/.exec(buyer.url())![1]!;
    const row = (await d.harness.runtime.db.knex('payments').where({ id: paymentId }).first()) as {
      link_id: string;
      amount_value: string;
    };
    assert.equal(row.link_id, new URL(url).pathname.slice(3));
    assert.equal(row.amount_value, '1250');

    // The link shows its payments: "View payments" opens the Payments screen filtered by the link (§30.8).
    await d.harness.call('POST', '/v1/merchant/payment', {
      body: { amount: { unit: 'iso4217/USD', value: '700' }, referenceId: 'not_from_the_link' },
    });
    await page.reload();
    await page.getByRole('link', { name: 'View payments of Support the community radio' }).click();
    await page.waitForURL(/\/dashboard\/payments\?link=plink_[0-9A-Za-z]{20}$/);
    await page.getByTestId('payments-link-filter').waitFor();
    await page.locator(`tr[data-payment="${paymentId}"]`).waitFor();
    assert.equal(await page.locator('tr[data-payment]').count(), 1);
    await d.capture(page, 'links-payments');
    await page.getByRole('button', { name: 'Show every payment' }).click();
    await page.waitForURL(/\/dashboard\/payments$/);
    await page.locator('tr[data-payment]').nth(1).waitFor();
  });

  it("a used-up link's page says why", async () => {
    const created = await d.harness.call('POST', '/v1/merchant/payment-links', {
      body: { currency: 'iso4217/USD', amount: '500', description: 'One seat', maxUses: 1 },
    });
    const link = (await created.json()) as { id: string };
    const first = await d.open(`/l/${link.id}`);
    await first.waitForURL(/\/pay\//);
    const second = await d.open(`/l/${link.id}`);
    await second.getByRole('heading', { name: 'Link used up' }).waitFor();
    await captureWidths(second, SHOTS_DIR, 'link-used-up');
  });
});
