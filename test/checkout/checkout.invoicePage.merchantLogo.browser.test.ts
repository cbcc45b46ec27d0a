/**
 * Issue 31 finding 10 (docs/decisions.md §26.27): an invoice's page (`/i/{invoiceId}`) shows the merchant's uploaded
 * logo beside its name, drawn from this origin's `/logos/`, and nothing leaves the origin; without a logo the page is
 * as before (the name alone). In the shipped app; axe and screenshots at 1280 and 375 px.
 */
import assert from 'node:assert/strict';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { createInvoice } from '../merchant/invoiceHarness.js';
import { captureWidths } from '../helpers/browser.js';
import { startDashboardBrowser, type DashboardBrowser } from '../dashboard/browser.js';
import { pngLogo } from '../dashboard/logoFiles.js';
import { assertLogoDrawn, requestsElsewhere } from '../dashboard/logoShown.js';
import { SHOTS_DIR } from './page.js';

describe('checkout.invoicePage merchant logo (browser)', () => {
  let d: DashboardBrowser;
  let merchantName: string;
  let invoicePath: string;
  before(async () => {
    d = await startDashboardBrowser();
    merchantName = (await findMerchant(d.harness.runtime.db.knex, d.harness.account.merchantId))!.name;
    const invoice = await createInvoice(d.harness);
    invoicePath = new URL(invoice.url).pathname;
  });
  after(() => d.close());

  it('without a logo, the invoice shows the merchant name alone', async () => {
    const page = await d.open(invoicePath);
    await page.getByRole('heading', { name: /^Invoice / }).waitFor();
    await page.getByText(merchantName, { exact: true }).waitFor();
    assert.equal(await page.getByRole('img').count(), 0);
  });

  it('with an uploaded logo, the invoice shows it beside the merchant name, drawn from this origin', async () => {
    await setMerchantLogo(d.harness.runtime, d.harness.account.merchantId, pngLogo(96, 96).toString('base64'));
    const context = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const elsewhere = requestsElsewhere(page, d.url(''));
    await page.goto(d.url(invoicePath));
    await page.getByRole('heading', { name: /^Invoice / }).waitFor();
    const logo = page.getByRole('img', { name: `${merchantName}'s logo` });
    assert.equal(await logo.count(), 1, 'the invoice shows the merchant logo');
    await assertLogoDrawn(logo, merchantName);
    await captureWidths(page, SHOTS_DIR, 'invoice-logo');
    assert.deepEqual(elsewhere, []);
    await context.close();
  });
});
