/**
 * The API keys screen in Chromium against the real server: create (the secret shown once, and it works), rotate (the
 * confirmation says the old key stops at once, and it does), revoke behind the typed prefix; partner keys are
 * read-only with the explanation; a viewer sees no key, no button, and a crafted request is refused. axe at both widths.
 */
import assert from 'node:assert/strict';
import { callAs, createPerson, signInAs, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.apiKeys browser', () => {
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

  /** An existing dashboard operation with a key: anything but 401 means the key is accepted. */
  const withKey = (key: string) =>
    fetch(d.url('/v1/dashboard/webhook-deliveries'), {
      headers: { 'Api-Key': key, 'Merchant-Id': d.harness.account.merchantId },
    });

  it('create → secret once and working; rotate → the old one refused; revoke after typing the prefix', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByLabel('Label (optional)').fill('shop backend');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    const secret = (await shown.locator('[data-secret]').textContent())!;
    assert.match(secret, /^sk_test_/);
    assert.equal((await withKey(secret)).status, 200, 'the new key works');
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone once closed');
    const row = page.locator('tr', { hasText: 'shop backend' });
    await row.waitFor();
    assert.ok(secret.startsWith(((await row.locator('.mono').textContent()) ?? '').replace('…', '')));
    await d.capture(page, 'api-keys');

    await row.getByRole('button', { name: /^Rotate/ }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the key' });
    await rotate.getByText('The old key stops working immediately').waitFor();
    await rotate.getByRole('button', { name: 'Rotate' }).click();
    const rotated = page.getByRole('dialog', { name: 'Your rotated API key' });
    const next = (await rotated.locator('[data-secret]').textContent())!;
    await rotated.getByRole('button', { name: 'I have saved it' }).click();
    assert.equal((await withKey(secret)).status, 401, 'the old key stopped');
    assert.equal((await withKey(next)).status, 200, 'the new key works');

    const active = page.locator('tr', { hasText: 'shop backend' }).filter({ hasText: 'active' });
    await active.getByRole('button', { name: /^Revoke/ }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke the key' });
    const typed = (await revoke.locator('strong.mono').textContent())!;
    assert.ok(next.startsWith(typed), 'the prefix to type is the key prefix');
    assert.ok(await revoke.getByRole('button', { name: 'Revoke' }).isDisabled());
    await revoke.getByLabel(/Type/).fill(typed);
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await revoke.waitFor({ state: 'detached' });
    assert.equal((await withKey(next)).status, 401, 'the revoked key stopped');
  });

  it('an owner creates a key allowed to refund (marked in the list); a developer is not offered the switch', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url('/dashboard/api-keys'));
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByLabel('Label (optional)').fill('support refunds');
    await page.getByLabel(/Allow refunds through claim links/).check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    const secret = (await shown.locator('[data-secret]').textContent())!;
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.locator('tr', { hasText: 'support refunds' });
    await row.getByText('refunds', { exact: true }).waitFor();
    const stored = (await d.harness.runtime.db
      .knex('api_keys')
      .where({ prefix: secret.slice(0, 12) })
      .first()) as {
      can_refund: unknown;
    };
    assert.equal(Boolean(stored.can_refund), true);

    const developer = await createPerson(d.harness.runtime, {
      merchantId: d.harness.account.merchantId,
      role: 'developer',
    });
    const other = await d.open('/dashboard/login');
    await signInThroughPage(other, developer);
    await other.goto(d.url('/dashboard/api-keys'));
    await other.getByRole('button', { name: 'Create a key' }).click();
    await other.getByLabel('Label (optional)').waitFor();
    assert.equal(await other.getByLabel(/Allow refunds/).count(), 0, 'only owners can allow refunds');
  });

  it('partner keys: listed read-only, with who manages them', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url('/dashboard/api-keys'));
    const partner = page.locator('tr', { hasText: 'Partner' });
    await partner.first().waitFor();
    assert.equal(await partner.getByRole('button').count(), 0);
    await page.getByText(/created, rotated and revoked by\s+the operator/).waitFor();
  });

  it('a viewer: no API keys in the nav, the screen explains with no button, and a crafted create is refused', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, viewer);
    assert.equal(await page.getByRole('link', { name: 'API keys' }).count(), 0);
    await page.goto(d.url('/dashboard/api-keys'));
    await page.getByText('Only owners and developers can see and manage API keys.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create a key' }).count(), 0);
    await d.capture(page, 'api-keys-viewer');
    const session = await signInAs(d.harness, viewer);
    const crafted = await callAs(d.harness, session, 'POST', '/v1/dashboard/api-keys', {
      body: { mode: 'test' },
      merchantId: d.harness.account.merchantId,
    });
    assert.equal(crafted.status, 403);
  });
});
