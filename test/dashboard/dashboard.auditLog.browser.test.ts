/**
 * The Audit log screen in Chromium against the real server: an owner's change made through the API shows at the top
 * of the log with their email as actor and what changed in words (issue 31 finding 13: not the operation id and raw
 * JSON, never the unchanged fields), as a card on a phone (finding 15); a viewer has no link, gets the role notice and
 * the screen asks the server for nothing.
 */
import assert from 'node:assert/strict';
import { callAs, createPerson, signInAs, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.auditLog browser', () => {
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

  it('listAuditLog: an owner sees their invitation in words, newest first, with their email as actor', async () => {
    const session = await signInAs(d.harness, owner);
    const created = await callAs(d.harness, session, 'POST', '/v1/dashboard/team/invitations', {
      body: { role: 'viewer' },
      merchantId: d.harness.account.merchantId,
    });
    assert.equal(created.status, 201);

    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const first = page.locator('[data-audit]').first();
    await first.waitFor();
    const text = (await first.textContent()) ?? '';
    assert.ok(text.includes(owner.email), `actor in: ${text}`);
    assert.ok(text.includes('Invited a teammate as viewer'), `action in words in: ${text}`);
    assert.ok(!text.includes('createInvitation') && !text.includes('{'), `no operation id or JSON in: ${text}`);
    await d.capture(page, 'audit-log');
  });

  it('listAuditLog: a settings change says what changed, from and to, and not the fields that stayed', async () => {
    const session = await signInAs(d.harness, owner);
    const merchantId = d.harness.account.merchantId;
    const save = (body: unknown) => callAs(d.harness, session, 'PATCH', '/v1/dashboard/settings', { body, merchantId });
    assert.equal((await save({ name: 'Acme Shop', collectData: false, requireTwoFactor: false })).status, 200);
    // What the settings form sends: every field, one of them changed.
    assert.equal((await save({ name: 'Acme Books', collectData: false, requireTwoFactor: false })).status, 200);

    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url('/dashboard/settings/audit-log'));
    // The fixtures' clock stands still: both saves have one time, so the entry is found by what it says.
    const first = page.locator('[data-audit]', { hasText: 'Acme Books' });
    await first.waitFor();
    const text = (await first.textContent()) ?? '';
    assert.ok(text.includes('Changed the settings: name from “Acme Shop” to “Acme Books”'), `in words in: ${text}`);
    assert.ok(!/collect|two-factor|updateSettings/i.test(text), `no unchanged field or operation id in: ${text}`);

    await page.setViewportSize({ width: 375, height: 900 });
    const box = await first.getByText('Changed the settings').boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `the entry fits the phone: ${JSON.stringify(box)}`);
    await d.capture(page, 'audit-log-settings');
  });

  it('listAuditLog: a viewer has no link and gets the role notice, with no entry loaded', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, viewer);
    assert.equal(await page.getByRole('link', { name: 'Audit log' }).count(), 0);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/dashboard/audit-log')) asked.push(r.url());
    });
    await page.goto(d.url('/dashboard/settings/audit-log'));
    await page.getByText('Only owners can read the audit log.').waitFor();
    assert.equal(await page.locator('[data-audit]').count(), 0);
    assert.deepEqual(asked, []);
    await d.capture(page, 'audit-log-viewer');
  });
});
