/**
 * What each role sees of the dashboard web app, in Chromium against the real server: the nav offers a viewer
 * neither Team nor API keys, and those screens opened directly explain and offer no mutation, while the server
 * refuses a crafted team request; a developer sees API keys but not Team; an owner sees both. A member of several
 * merchants switches between them, and each request names the chosen one. axe at both widths.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { addMembership } from '../../server/src/users/userAccounts.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { callAs, createPerson, signInAs } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.appRoles browser', () => {
  let d: DashboardBrowser;
  before(async () => {
    d = await startDashboardBrowser();
  });
  after(() => d.close());

  const navLinks = async (page: Page) =>
    (await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').allTextContents()).map((t) =>
      t.trim(),
    );

  it('viewer: no Team, no API keys; Team opened directly explains with no button; a crafted invitation is refused', async () => {
    const h = d.harness;
    const viewer = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'viewer' });
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, viewer);
    assert.deepEqual(await navLinks(page), [
      'Overview',
      'Payments',
      'Payment links',
      'Invoices',
      'Balances & payouts',
      'Webhooks',
      'Settings',
      'Security',
    ]);
    await page.goto(d.url('/dashboard/settings/team'));
    await page.getByText('Only owners can see and manage the team.').waitFor();
    assert.equal(await page.locator('main').getByRole('button').count(), 0);
    await d.capture(page, 'team-viewer');
    const session = await signInAs(h, viewer);
    const crafted = await callAs(h, session, 'POST', '/v1/dashboard/team/invitations', {
      body: { role: 'owner' },
      merchantId: h.account.merchantId,
    });
    assert.equal(crafted.status, 403);
  });

  it('developer sees API keys but not Team or the audit log; owner sees all three', async () => {
    const h = d.harness;
    const developer = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
    const owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, developer);
    assert.deepEqual(await navLinks(page), [
      'Overview',
      'Payments',
      'Payment links',
      'Invoices',
      'Balances & payouts',
      'Webhooks',
      'API keys',
      'Point of sale',
      'Settings',
      'Security',
    ]);
    const other = await d.open('/dashboard/login');
    await signInThroughPage(other, owner);
    assert.deepEqual(await navLinks(other), [
      'Overview',
      'Payments',
      'Payment links',
      'Invoices',
      'Balances & payouts',
      'Webhooks',
      'API keys',
      'Point of sale',
      'Settings',
      'Team',
      'Audit log',
      'Security',
    ]);
  });

  it('a member of two merchants switches between them: the role follows, and requests name the chosen merchant', async () => {
    const h = d.harness;
    const second = await createMerchantAccount(h.runtime);
    const person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    await addMembership(h.runtime, person.userId, second.merchantId, 'viewer');
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, person);
    const switcher = page.getByLabel('Merchant', { exact: true });
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/dashboard/settings')) sent.push(r.headers()['merchant-id'] ?? '');
    });
    await switcher.selectOption(second.merchantId);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByText('Only owners can change the settings').waitFor();
    assert.equal(sent.at(-1), second.merchantId);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('paygate.dashboard.merchant')), second.merchantId);
    assert.ok(!(await navLinks(page)).includes('Team'));
    await switcher.selectOption(h.account.merchantId);
    await page.getByRole('link', { name: 'Team' }).waitFor();
  });

  it('a merchant requiring 2FA: a member without it is told to enrol, with a link to Security', async () => {
    const h = d.harness;
    const merchant = await createMerchantAccount(h.runtime);
    const person = await createPerson(h.runtime, { merchantId: merchant.merchantId, role: 'owner' });
    const session = await signInAs(h, person);
    const required = await callAs(h, session, 'PATCH', '/v1/dashboard/settings', {
      body: { requireTwoFactor: true },
      merchantId: merchant.merchantId,
    });
    assert.equal(required.status, 200);
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, person);
    // The shell's banner (the screen below also says why it shows nothing).
    const banner = page.getByRole('alert').filter({ has: page.getByRole('link', { name: 'Enrol in Security' }) });
    await banner.waitFor();
    await banner.getByRole('link', { name: 'Enrol in Security' }).click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    assert.equal(await page.getByText('Your team requires two-factor authentication').count(), 0);
  });

  it('phone width: the nav is a menu behind a button that says whether it is open', async () => {
    const h = d.harness;
    const owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    const page = await d.open('/dashboard/login', { width: 375 });
    await signInThroughPage(page, owner);
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.ok(!(await page.getByRole('link', { name: 'Payments' }).isVisible()));
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await page.getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    await d.capture(page, 'overview');
  });
});
