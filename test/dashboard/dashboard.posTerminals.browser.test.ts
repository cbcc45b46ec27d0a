/**
 * The point-of-sale screen of the dashboard in Chromium against the real server: create a terminal (its key shown
 * once, and it unlocks the terminal's operations), list it with the screen's address, revoke it behind its typed
 * name (the key stops at once). axe and screenshots at both widths.
 */
import assert from 'node:assert/strict';
import { createPerson, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.posTerminals browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
  });
  after(() => d.close());

  const withKey = (posId: string, key: string) =>
    fetch(d.url(`/v1/gateway/pos/${posId}`), { headers: { 'Pos-Key': key } });

  it('create → key once and working; listed with its screen; revoke after typing the name → refused', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Point of sale' }).click();
    await page.getByRole('button', { name: 'Create a terminal' }).click();
    await page.getByLabel('Name').fill('Counter');
    await page.getByLabel('Catalogue (optional)').fill('Espresso = 3.00\nCroissant = 4.25');
    await d.capture(page, 'pos-create');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByRole('dialog', { name: "Your terminal's POS access key" });
    const key = (await shown.locator('[data-secret]').textContent())!;
    assert.match(key, /^posk_test_/);
    const screen = (await shown.getByRole('link').first().getAttribute('href'))!;
    const posId = screen.split('/pos/')[1]!;
    assert.equal((await withKey(posId, key)).status, 200, 'the key unlocks its terminal');
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.locator('tr', { hasText: 'Counter' });
    await row.getByText('Espresso $3.00, Croissant $4.25').waitFor();
    await d.capture(page, 'pos-terminals');

    await row.getByRole('button', { name: /^Revoke/ }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke the terminal' });
    await revoke.getByLabel(/Type/).fill('Counter');
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await revoke.waitFor({ state: 'detached' });
    await row.getByText('revoked').waitFor();
    assert.equal((await withKey(posId, key)).status, 401, 'the revoked key stopped');
  });
});
