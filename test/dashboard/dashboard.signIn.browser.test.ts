/**
 * Signing in to the dashboard web app, in Chromium against the real server: a signed-out visit lands on the sign-in
 * page and returns to the screen after sign-in; the 2FA step (a wrong code refused, a recovery code instead, the
 * authenticator's code); a wrong password's message; the mode switch and the headers it sends; sign-out from the
 * account menu; a session that expires on the server's clock sends the next navigation to sign-in. The sign-in pages
 * pass axe at both widths.
 */
import assert from 'node:assert/strict';
import { callAs, codeAt, createPerson, postLogin, signInAs, type Person } from './people.js';
import { landsOn, signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.signIn browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  let twoFactor: Person & { secret: string; recoveryCodes: string[] };
  before(async () => {
    d = await startDashboardBrowser();
    const h = d.harness;
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    const person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
    const session = await signInAs(h, person);
    const enrol = await callAs(h, session, 'POST', '/v1/dashboard/two-factor/enrol');
    const { secret } = (await enrol.json()) as { secret: string };
    const activated = await callAs(h, session, 'POST', '/v1/dashboard/two-factor/activate', {
      body: { code: codeAt(h, secret) },
    });
    assert.equal(activated.status, 200);
    const { recoveryCodes } = (await activated.json()) as { recoveryCodes: string[] };
    // A code is accepted once per step: the sign-ins below use the next steps' codes.
    h.clock.advance(30_000);
    twoFactor = { ...person, secret, recoveryCodes };
  });
  after(() => d.close());

  it('sign-in page: labelled fields, axe clean, screenshots at 1280 and 375', async () => {
    const page = await d.open('/dashboard/login');
    assert.equal(await page.getByLabel('Email').getAttribute('autocomplete'), 'username');
    assert.equal(await page.getByLabel('Password').getAttribute('type'), 'password');
    await d.capture(page, 'login');
  });

  it('signed out → sign-in keeping the screen; signed in → back on it in test mode; the mode switch sends live', async () => {
    const page = await d.open('/dashboard/settings/security');
    await landsOn(page, '/dashboard/login');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/dashboard/settings/security');
    assert.deepEqual(await page.context().cookies(), [], 'no cookie before sign-in');
    await signInThroughPage(page, owner, { next: '/dashboard/settings/security' });
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByText('Test mode: you are viewing test data').waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'paygate_session');
    assert.ok(cookie?.httpOnly && cookie.sameSite === 'Strict', 'an HttpOnly, SameSite=Strict session cookie');

    const sent: Record<string, string>[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/dashboard/sessions')) sent.push(r.headers());
    });
    await page.getByRole('switch', { name: 'Test mode' }).click();
    assert.equal(await page.getByText('Test mode: you are viewing test data').count(), 0);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('paygate.dashboard.mode')), 'live');
    await page.locator('[data-session="current"]').waitFor();
    assert.equal(sent.at(-1)?.['paygate-mode'], 'live');
    assert.equal(sent.at(-1)?.['merchant-id'], d.harness.account.merchantId);
  });

  it('wrong password: the message shows in an alert, no cookie, still on sign-in', async () => {
    const page = await d.open('/dashboard/login');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.locator('.form-error');
    await alert.waitFor();
    assert.ok(((await alert.textContent()) ?? '').length > 10, 'a message is shown');
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    assert.deepEqual(await page.context().cookies(), []);
  });

  it('locked after repeated failures: the throttle message with the wait from Retry-After, and no sign-in', async () => {
    const locked = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId });
    for (let i = 0; i < 5; i++) {
      const res = await postLogin(d.harness, { email: locked.email, password: 'wrong password number x' });
      assert.equal(res.status, 401);
    }
    const page = await d.open('/dashboard/login');
    await page.getByLabel('Email').fill(locked.email);
    await page.getByLabel('Password').fill(locked.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .locator('.form-error')
      .getByText(/Try again in 15 minutes\./)
      .waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    assert.deepEqual(await page.context().cookies(), []);
  });

  it('2FA: a wrong code is refused in the form; a recovery code instead signs in; so does the current code', async () => {
    const page = await d.open('/dashboard/login');
    await page.getByLabel('Email').fill(twoFactor.email);
    await page.getByLabel('Password').fill(twoFactor.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await d.capture(page, 'login-2fa');
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('.form-error').waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(twoFactor.recoveryCodes[0]!);
    const read = page.waitForResponse((r) => r.url().endsWith('/v1/dashboard/session') && r.status() === 200);
    await page.getByRole('button', { name: 'Verify' }).click();
    await landsOn(page, '/dashboard');
    await read;

    const other = await d.open('/dashboard/login');
    await signInThroughPage(other, twoFactor, { totp: codeAt(d.harness, twoFactor.secret) });
    await other.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('sign out from the account menu: back on sign-in, and the old cookie no longer reads the session', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'paygate_session')!;
    await page.locator('summary').click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await landsOn(page, '/dashboard/login');
    const res = await fetch(d.url('/v1/dashboard/session'), { headers: { Cookie: `${cookie.name}=${cookie.value}` } });
    assert.equal(res.status, 401);
  });

  it('session expiry: past the idle timeout on the server clock, the next navigation lands on sign-in', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    // The overview's own reads must be answered first: one still in flight when the session expires would itself
    // send the page to sign-in (with `next` the overview), before the navigation under test.
    await page.getByRole('heading', { name: 'First steps' }).waitFor();
    d.harness.clock.advance(31 * 60 * 1000);
    await page.getByRole('link', { name: 'Payments' }).click();
    await landsOn(page, '/dashboard/login');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/dashboard/payments');
  });
});
