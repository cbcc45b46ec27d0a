/**
 * Issue 31 finding 10 (docs/decisions.md §26.27): the signed-in merchant's logo beside its name in the dashboard's
 * header, in the shipped app through the real sign-in, drawn from this origin's `/logos/<sha256>.png` (no request
 * leaves it). axe and screenshots at both widths.
 */
import assert from 'node:assert/strict';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { eventually } from '../helpers/wait.js';
import { createPerson, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';
import { pngLogo } from './logoFiles.js';

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
    const page = await d.open('/dashboard/login');
    const origin = new URL(page.url()).origin;
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    await signInThroughPage(page, owner);
    const logo = page.getByRole('banner').getByRole('img');
    await eventually('the header logo to be drawn', () =>
      logo.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
    );
    assert.match((await logo.getAttribute('src'))!, /^\/logos\/[0-9a-f]{64}\.png$/);
    assert.match((await logo.getAttribute('alt'))!, /'s logo$/);
    await d.capture(page, 'header-logo');
    assert.deepEqual(elsewhere, []);
  });
});
