/**
 * Issue 31 finding 10 (docs/decisions.md §26.27): the signed-in merchant's logo beside its name in the dashboard's
 * header, in the shipped app through the real sign-in, drawn from this origin's `/logos/<sha256>.png` (no request
 * leaves it). axe and screenshots at both widths.
 */
import assert from 'node:assert/strict';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { createPerson, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';
import { pngLogo } from './logoFiles.js';
import { assertLogoDrawn, requestsElsewhere } from './logoShown.js';

describe('dashboard.headerLogo browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
    await setMerchantLogo(d.harness.runtime, d.harness.account.merchantId, pngLogo(96, 96).toString('base64'));
  });
  after(() => d.close());

  it('the header shows the merchant logo beside its name, drawn from this origin', async () => {
    const merchantName = (await findMerchant(d.harness.runtime.db.knex, d.harness.account.merchantId))!.name;
    const page = await d.open('/dashboard/login');
    const elsewhere = requestsElsewhere(page, new URL(page.url()).origin);
    await signInThroughPage(page, owner);
    await assertLogoDrawn(page.getByRole('banner').getByRole('img', { name: `${merchantName}'s logo` }), merchantName);
    await d.capture(page, 'header-logo');
    assert.deepEqual(elsewhere, []);
  });
});
