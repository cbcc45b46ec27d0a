import assert from 'node:assert/strict';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, codeAt, createPerson, postLogin, signInAs, type Person, type SignedIn } from './people.js';

const STEP = 30_000;

interface Enrolment {
  secret: string;
  otpauthUri: string;
}

/** Enrolment, activation, sign-in with a code or a recovery code, each once; new codes; disabling; team requirement. */
describe('dashboard.twoFactor', () => {
  let h: Harness;
  let person: Person;
  let me: SignedIn;
  let secret: string;
  let recoveryCodes: string[];
  before(async () => {
    h = await startHarness();
    person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    me = await signInAs(h, person);
  });
  after(() => h.close());

  const post = (path: string, body?: unknown, who: SignedIn = me) => callAs(h, who, 'POST', path, { body });

  it('startTwoFactorEnrolment: a base32 secret and its otpauth URI; nothing active yet', async () => {
    const enrolment = await expectJson<Enrolment>(await post('/v1/dashboard/two-factor/enrol'), 200);
    assert.match(enrolment.secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(enrolment.otpauthUri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), enrolment.secret);
    assert.equal(uri.searchParams.get('issuer'), 'Paygate');
    secret = enrolment.secret;
    const session = await expectJson<{ user: { twoFactorEnabled: boolean } }>(
      await callAs(h, me, 'GET', '/v1/dashboard/session'),
      200,
    );
    assert.equal(session.user.twoFactorEnabled, false);
  });

  it('activateTwoFactor: a wrong code is 400 params_validation; a current code activates and returns 10 codes', async () => {
    const wrong = codeAt(h, secret) === '000000' ? '111111' : '000000';
    await expectError(await post('/v1/dashboard/two-factor/activate', { code: wrong }), 400, 'params_validation');
    const body = await expectJson<{ recoveryCodes: string[] }>(
      await post('/v1/dashboard/two-factor/activate', { code: codeAt(h, secret) }),
      200,
    );
    assert.equal(body.recoveryCodes.length, 10);
    assert.equal(new Set(body.recoveryCodes).size, 10);
    for (const c of body.recoveryCodes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    recoveryCodes = body.recoveryCodes;
    // Stored as hashes only.
    const stored = (await h.runtime.db.knex('recovery_codes').where({ user_id: person.userId })) as {
      code_hash: string;
    }[];
    assert.equal(stored.length, 10);
    assert.ok(stored.every((r) => !recoveryCodes.some((c) => r.code_hash.includes(c.replace('-', '')))));
    await expectError(await post('/v1/dashboard/two-factor/enrol'), 409, 'invalid_state');
  });

  it('signIn: without a code two_factor_required and no cookie; a code already used at activation is refused', async () => {
    const res = await postLogin(h, { email: person.email, password: person.password });
    assert.deepEqual(await expectJson(res, 200), { status: 'two_factor_required' });
    assert.equal(res.headers.getSetCookie().length, 0);
    await expectError(
      await postLogin(h, { email: person.email, password: person.password, totpCode: codeAt(h, secret) }),
      401,
      'unauthorized',
    );
  });

  it('signIn: a code of the next step signs in once; the same code again is 401', async () => {
    h.clock.advance(STEP);
    const code = codeAt(h, secret);
    const signedIn = await signInAs(h, person, { totpCode: code });
    assert.equal((signedIn.session.user as { twoFactorEnabled: boolean }).twoFactorEnabled, true);
    await expectError(
      await postLogin(h, { email: person.email, password: person.password, totpCode: code }),
      401,
      'unauthorized',
    );
  });

  it('signIn: a recovery code works once, in any case and without its dash', async () => {
    const code = recoveryCodes[0]!;
    await signInAs(h, person, { recoveryCode: code.toUpperCase().replace('-', '') });
    await expectError(
      await postLogin(h, { email: person.email, password: person.password, recoveryCode: code }),
      401,
      'unauthorized',
    );
  });

  it('regenerateRecoveryCodes: new codes; the old ones stop working', async () => {
    h.clock.advance(STEP);
    const body = await expectJson<{ recoveryCodes: string[] }>(
      await post('/v1/dashboard/two-factor/recovery-codes', { code: codeAt(h, secret) }),
      200,
    );
    assert.equal(body.recoveryCodes.length, 10);
    await expectError(
      await postLogin(h, { email: person.email, password: person.password, recoveryCode: recoveryCodes[1]! }),
      401,
      'unauthorized',
    );
    recoveryCodes = body.recoveryCodes;
  });

  it('team requirement: a member without 2FA gets 403 on merchant operations but keeps session operations', async () => {
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ require_two_factor: true });
    const colleague = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
    const them = await signInAs(h, colleague);
    const message = await expectError(
      await callAs(h, them, 'GET', '/v1/dashboard/webhook-endpoint', { merchantId: h.account.merchantId }),
      403,
      'forbidden',
    );
    assert.match(message, /two-factor/);
    const session = await expectJson<{ memberships: { requireTwoFactor: boolean }[] }>(
      await callAs(h, them, 'GET', '/v1/dashboard/session'),
      200,
    );
    assert.equal(session.memberships[0]!.requireTwoFactor, true);
    // The enrolled owner passes.
    assert.notEqual(
      (await callAs(h, me, 'GET', '/v1/dashboard/webhook-endpoint', { merchantId: h.account.merchantId })).status,
      403,
    );
    // And cannot turn 2FA off while the team requires it.
    h.clock.advance(STEP);
    await expectError(
      await post('/v1/dashboard/two-factor/disable', { password: person.password, code: codeAt(h, secret) }),
      409,
      'invalid_state',
    );
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ require_two_factor: false });
  });

  it('disableTwoFactor: a wrong password is 400; password and code turn it off; sign-in needs no code again', async () => {
    h.clock.advance(STEP);
    await expectError(
      await post('/v1/dashboard/two-factor/disable', { password: 'not the password', code: codeAt(h, secret) }),
      400,
      'params_validation',
    );
    const res = await post('/v1/dashboard/two-factor/disable', { password: person.password, code: codeAt(h, secret) });
    assert.equal(res.status, 204, await res.text());
    const again = await signInAs(h, person);
    assert.equal((again.session.user as { twoFactorEnabled: boolean }).twoFactorEnabled, false);
    await expectError(
      await post('/v1/dashboard/two-factor/recovery-codes', { code: codeAt(h, secret) }),
      409,
      'invalid_state',
    );
  });
});
