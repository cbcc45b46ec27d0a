/**
 * The Security screen in Chromium against the real server: 2FA enrolment (QR code and manual secret; a wrong code
 * refused without signing out; recovery codes shown once, with copy and a .txt download), regenerating the codes,
 * turning 2FA off; the sessions list with this device marked and another session revoked. axe at both widths.
 */
import assert from 'node:assert/strict';
import { callAs, codeAt, createPerson, signInAs } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.security browser', () => {
  let d: DashboardBrowser;
  before(async () => {
    d = await startDashboardBrowser();
  });
  after(() => d.close());

  it('enrol 2FA: QR and secret; a wrong code refused in place; recovery codes once; regenerate; turn off', async () => {
    const h = d.harness;
    const person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, person);
    await page.getByRole('link', { name: 'Security' }).first().click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const secret = (await page.locator('[data-totp-secret]').textContent())!.replace(/\s/g, '');
    await d.capture(page, 'security-enrol');

    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('.form-error, .field-error').first().waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/settings/security', 'a wrong code does not sign out');

    await page.getByLabel('Authentication code').fill(codeAt(h, secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your recovery codes' });
    const codes = ((await dialog.locator('[data-secret]').textContent()) ?? '').split('\n').filter(Boolean);
    assert.equal(codes.length, 10);
    assert.match((await dialog.getByRole('link', { name: 'Download .txt' }).getAttribute('href'))!, /^blob:/);
    assert.equal(
      await dialog.getByRole('link', { name: 'Download .txt' }).getAttribute('download'),
      'paygate-recovery-codes.txt',
    );
    await d.capture(page, 'security-recovery-codes');
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    assert.equal(await page.getByText(codes[0]!).count(), 0, 'the codes are gone once closed');
    await page.getByText('On', { exact: true }).first().waitFor();

    h.clock.advance(30_000);
    await page.getByRole('button', { name: 'Regenerate recovery codes' }).click();
    const regenerate = page.getByRole('dialog', { name: 'Regenerate recovery codes' });
    await regenerate.getByLabel('Authentication code').fill(codeAt(h, secret));
    await regenerate.getByRole('button', { name: 'Regenerate' }).click();
    const fresh = page.getByRole('dialog', { name: 'Your recovery codes' });
    const next = ((await fresh.locator('[data-secret]').textContent()) ?? '').split('\n').filter(Boolean);
    assert.equal(next.length, 10);
    assert.notDeepEqual(next, codes);
    await fresh.getByRole('button', { name: 'I have saved it' }).click();

    h.clock.advance(30_000);
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).click();
    const off = page.getByRole('dialog', { name: 'Turn off two-factor authentication' });
    await off.getByLabel('Password').fill(person.password);
    await off.getByLabel('Authentication code').fill(codeAt(h, secret));
    await off.getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
  });

  it('sessions: this device is marked; another session is revoked and stops working; axe at both widths', async () => {
    const h = d.harness;
    const person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'viewer' });
    const other = await signInAs(h, person);
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, person);
    await page.goto(d.url('/dashboard/settings/security'));
    await page.locator('[data-session="current"]').getByText('This device').waitFor();
    assert.equal(await page.locator('[data-session="other"]').count(), 1);
    await d.capture(page, 'security');
    await page.locator('[data-session="other"]').getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke this session' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('[data-session="other"]').waitFor({ state: 'detached' });
    assert.equal((await callAs(h, other, 'GET', '/v1/dashboard/session')).status, 401);
  });
});
