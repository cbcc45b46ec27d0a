// TO ADD AFTER MERGE (the "team" helper's operations): copy to test/dashboard/dashboard.team.browser.test.ts.
// Verified against a Playwright fake of the contract in web-shell's worktree; not yet against the real server.
/**
 * The Team screen and the invitation page in Chromium against the real server (owners): an invitation's link shown
 * once and accepted in another browser (a short password refused beside its field first), the last owner's demotion
 * refused with the server's message, a member removed behind a typed confirmation, an invitation revoked.
 */
import assert from 'node:assert/strict';
import { createPerson, type Person } from './people.js';
import { landsOn, signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.team browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  let developer: Person;
  before(async () => {
    d = await startDashboardBrowser();
    const h = d.harness;
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    developer = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
  });
  after(() => d.close());

  it('invite: the link is shown once and opens the invitation in another browser, which joins', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await d.capture(page, 'team');
    await page.getByRole('button', { name: 'Invite a member' }).click();
    await page.getByRole('radio', { name: /viewer/ }).check();
    await page.getByRole('button', { name: 'Create the link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invitation link' });
    const link = (await dialog.locator('[data-secret]').textContent())!;
    assert.ok(link.startsWith(d.url('/dashboard/invite#')));
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    assert.equal(await page.getByText(link).count(), 0);

    const guest = await d.open('/dashboard/login');
    await guest.goto(link);
    await guest.getByRole('heading', { name: /^Join / }).waitFor();
    assert.equal(new URL(guest.url()).hash, '', 'the token left the address bar');
    await d.capture(guest, 'invite');
    await guest.getByLabel('Email').fill('new.member@shop.example.com');
    await guest.getByLabel('Password', { exact: true }).fill('short');
    await guest.getByLabel('Confirm the password').fill('short');
    await guest.getByRole('button', { name: /^Join / }).click();
    await guest.locator('.field-error, .form-error').first().waitFor();
    await guest.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
    await guest.getByLabel('Confirm the password').fill('correct horse battery staple');
    await guest.getByRole('button', { name: /^Join / }).click();
    await landsOn(guest, '/dashboard');
    await page.reload();
    await page.locator('[data-member="new.member@shop.example.com"]').waitFor();
  });

  it('the last owner cannot be demoted (the 409 message shown); a member is removed after typing their email', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url('/dashboard/settings/team'));
    await page.getByLabel(`Role of ${owner.email}`).selectOption('viewer');
    await page.locator('.form-error').waitFor();
    assert.equal(await page.getByLabel(`Role of ${owner.email}`).inputValue(), 'owner');
    await page.getByRole('button', { name: `Remove ${developer.email}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove a member' });
    assert.ok(await confirm.getByRole('button', { name: 'Remove' }).isDisabled());
    await confirm.getByLabel(/Type/).fill(developer.email);
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await page.locator(`[data-member="${developer.email}"]`).waitFor({ state: 'detached' });
  });

  it('an invitation is revoked, and its link then shows why it cannot be used', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url('/dashboard/settings/team'));
    await page.getByRole('button', { name: 'Invite a member' }).click();
    await page.getByRole('button', { name: 'Create the link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invitation link' });
    const link = (await dialog.locator('[data-secret]').textContent())!;
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    const rows = page.locator('[data-invitation]');
    const before = await rows.count();
    await rows
      .first()
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await page.getByRole('dialog', { name: 'Revoke the invitation' }).getByRole('button', { name: 'Revoke' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-invitation]').length === n - 1, before);
    const guest = await d.open('/dashboard/login');
    await guest.goto(link);
    await guest.locator('.form-error').waitFor();
  });
});
