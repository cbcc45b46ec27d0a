/**
 * Issue 31 finding 15, the lists left after the payments (§26.10): at 375 px the API keys, team and sessions lists
 * are cards, so every row's controls are on screen, not in a table scrolled sideways.
 */
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { callAs, createPerson, signInAs, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

const WIDTH = 375;

async function onScreen(control: Locator, what: string): Promise<void> {
  await control.waitFor();
  const box = await control.boundingBox();
  assert.ok(
    box && box.x >= 0 && box.x + box.width <= WIDTH,
    `${what} is on a ${WIDTH} px screen: ${JSON.stringify(box)}`,
  );
}

describe('dashboard.lists.narrow [browser]', () => {
  let d: DashboardBrowser;
  let owner: Person;
  let page: Page;
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
    const session = await signInAs(d.harness, owner);
    const key = await callAs(d.harness, session, 'POST', '/v1/dashboard/api-keys', {
      body: { mode: 'test', label: 'shop backend' },
      merchantId: d.harness.account.merchantId,
    });
    assert.equal(key.status, 201);
    page = await d.open('/dashboard/login', { width: WIDTH });
    await signInThroughPage(page, owner);
  });
  after(() => d.close());

  it('at 375 px the API keys list is cards with Rotate and Revoke on screen', async () => {
    await page.goto(d.url('/dashboard/api-keys'));
    const row = page
      .locator('[data-key]')
      .filter({ has: page.getByRole('button', { name: /^Rotate/ }) })
      .first();
    await onScreen(row.getByRole('button', { name: /^Rotate/ }), 'Rotate');
    await onScreen(row.getByRole('button', { name: /^Revoke/ }), 'Revoke');
    await d.capture(page, 'api-keys-narrow');
  });

  it('at 375 px the team list is cards with the role and Remove on screen', async () => {
    await page.goto(d.url('/dashboard/settings/team'));
    const row = page.locator(`[data-member="${owner.email}"]`);
    await onScreen(row.getByLabel(`Role of ${owner.email}`), 'the role');
    await onScreen(row.getByRole('button', { name: /^Remove/ }), 'Remove');
    await d.capture(page, 'team-narrow');
  });

  it('at 375 px the sessions list is cards with Sign out on screen', async () => {
    await page.goto(d.url('/dashboard/settings/security'));
    const row = page.locator('[data-session="current"]');
    await onScreen(row.getByRole('button', { name: 'Sign out' }), 'Sign out');
    await d.capture(page, 'security-narrow');
  });
});
