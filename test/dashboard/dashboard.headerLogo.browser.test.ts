/**
 * Issue 31 finding 10 (docs/decisions.md §26.27): the signed-in merchant's logo beside its name in the dashboard's
 * header, in the shipped app through the real sign-in, drawn from this origin's `/logos/<sha256>.png` (no request
 * leaves it). axe and screenshots at both widths.
 */
import assert from 'node:assert/strict';
import { removeMerchantLogo, setMerchantLogo } from '../../server/src/accounts/logo.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { eventually } from '../helpers/wait.js';
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

  it('a logo uploaded or removed in Settings shows in the header at once, without leaving the screen', async () => {
    const merchantName = (await findMerchant(d.harness.runtime.db.knex, d.harness.account.merchantId))!.name;
    await removeMerchantLogo(d.harness.runtime, d.harness.account.merchantId);
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    const header = page.getByRole('banner');
    assert.equal(await header.getByRole('img').count(), 0);
    const region = page.getByRole('region', { name: 'Logo' });
    await region.getByLabel('Upload a logo').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: pngLogo(64, 64),
    });
    await region.getByRole('status').getByText('Logo uploaded').waitFor();
    await assertLogoDrawn(header.getByRole('img', { name: `${merchantName}'s logo` }), merchantName);
    await region.getByRole('button', { name: 'Remove the logo' }).click();
    await region.getByRole('status').getByText('Logo removed').waitFor();
    await eventually('the header logo to go', async () => (await header.getByRole('img').count()) === 0);
  });
});
