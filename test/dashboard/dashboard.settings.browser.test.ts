/**
 * The Settings screen in Chromium against the real server: an owner's refusals are shown beside the field the
 * server's `param` names (a settlement address of a chain added with its CAIP-2 id), a valid change is
 * saved and read back; a viewer reads the settings with every field disabled and no save, and a crafted change is
 * refused. axe at both widths.
 */
import assert from 'node:assert/strict';
import { callAs, createPerson, signInAs, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('dashboard.settings browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  let viewer: Person;
  before(async () => {
    d = await startDashboardBrowser();
    const h = d.harness;
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    viewer = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'viewer' });
  });
  after(() => d.close());

  it('owner: an address refused beside its field; a valid change saved and read back', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();

    // This server runs no chains, so a chain is added by its CAIP-2 id.
    await page.getByLabel('Add a chain (CAIP-2 id)').fill('eip155:8453');
    await page.getByRole('button', { name: 'Add the chain' }).click();
    const address = page.getByLabel('Address on eip155:8453');
    await address.fill('not an address');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settlement address for eip155:8453 must be').waitFor();
    assert.equal(await address.getAttribute('aria-invalid'), 'true');
    await d.capture(page, 'settings-error');

    await address.fill(ADDRESS);
    await page.getByLabel('Name').fill('Acme Coffee Roasters');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    await page.reload();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Acme Coffee Roasters');
    assert.equal(await page.getByLabel('Address on eip155:8453').inputValue(), ADDRESS);
    await d.capture(page, 'settings');
  });

  it('viewer: read-only fields and no save; a crafted PATCH is refused', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, viewer);
    await page.goto(d.url('/dashboard/settings'));
    await page.getByText('Only owners can change the settings').waitFor();
    assert.ok(await page.getByLabel('Name').isDisabled());
    assert.equal(await page.getByRole('button', { name: 'Save settings' }).count(), 0);
    await d.capture(page, 'settings-viewer');
    const session = await signInAs(d.harness, viewer);
    const crafted = await callAs(d.harness, session, 'PATCH', '/v1/dashboard/settings', {
      body: { name: 'Hijacked' },
      merchantId: d.harness.account.merchantId,
    });
    assert.equal(crafted.status, 403);
  });
});
