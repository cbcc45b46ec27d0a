/**
 * Issue 31 finding 10 (docs/decisions.md §26.27): a payment link's page (`/l/{linkId}`) shows the merchant's uploaded
 * logo beside its name, drawn from this origin's `/logos/`, and nothing leaves the origin; without a logo the page is
 * as before (the name alone). In the shipped app; axe and screenshots at 1280 and 375 px.
 */
import assert from 'node:assert/strict';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { expectJson } from '../merchant/harness.js';
import { captureWidths } from '../helpers/browser.js';
import { SHOTS_DIR, startDashboardBrowser, type DashboardBrowser } from '../dashboard/browser.js';
import { pngLogo } from '../dashboard/logoFiles.js';
import { assertLogoDrawn, requestsElsewhere } from '../dashboard/logoShown.js';

describe('links.page merchant logo (browser)', () => {
  let d: DashboardBrowser;
  let merchantName: string;
  let linkPath: string;
  before(async () => {
    d = await startDashboardBrowser();
    merchantName = (await findMerchant(d.harness.runtime.db.knex, d.harness.account.merchantId))!.name;
    // The buyer chooses the amount, so a visit shows the page's form instead of going on to the checkout.
    const link = await expectJson<{ id: string }>(
      await d.harness.call('POST', '/v1/merchant/payment-links', {
        body: { currency: 'iso4217/USD', minAmount: '100', maxAmount: '50000', description: 'Support the radio' },
      }),
      201,
    );
    linkPath = `/l/${link.id}`;
  });
  after(() => d.close());

  it('without a logo, the page shows the merchant name alone', async () => {
    const page = await d.open(linkPath);
    await page.getByRole('heading', { name: 'Support the radio' }).waitFor();
    await page.getByText(merchantName, { exact: true }).waitFor();
    assert.equal(await page.getByRole('img').count(), 0);
  });

  it('with an uploaded logo, the page shows it beside the merchant name, drawn from this origin', async () => {
    await setMerchantLogo(d.harness.runtime, d.harness.account.merchantId, pngLogo(96, 96).toString('base64'));
    const context = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const elsewhere = requestsElsewhere(page, d.url(''));
    await page.goto(d.url(linkPath));
    await page.getByRole('heading', { name: 'Support the radio' }).waitFor();
    const logo = page.getByRole('img', { name: `${merchantName}'s logo` });
    assert.equal(await logo.count(), 1, 'the page shows the merchant logo');
    await assertLogoDrawn(logo, merchantName);
    await captureWidths(page, SHOTS_DIR, 'link-form-logo');
    assert.deepEqual(elsewhere, []);
    await context.close();
  });
});
