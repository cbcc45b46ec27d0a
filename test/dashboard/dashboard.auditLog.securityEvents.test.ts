import assert from 'node:assert/strict';
import { createMerchant } from '../../server/src/accounts/merchants.js';
import { addMembership } from '../../server/src/users/userAccounts.js';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, codeAt, createPerson, postLogin, sessionFor, signInAs, type Person, type SignedIn } from './people.js';

const STEP = 30_000;

interface Entry {
  actor: { kind: string; id: string; label: string | null };
  action: string;
  target: string | null;
  mode: string | null;
  ip: string | null;
  details: Record<string, unknown> | null;
  at: number;
}

/**
 * Security events of a person (2FA enrolment and removal, recovery-code use, session revocation, a lockout) are
 * in the audit log of every merchant the person belongs to, where that merchant's owners read them (§21.1).
 */
describe('dashboard.auditLog.securityEvents', () => {
  let h: Harness;
  let owner: SignedIn;
  let person: Person;
  let me: SignedIn;
  let otherMerchantId: string;
  before(async () => {
    h = await startHarness();
    owner = await signInAs(h, await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' }));
    person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
    otherMerchantId = (await createMerchant(h.runtime, { partnerId: h.account.partnerId, name: 'Second shop' })).id;
    await addMembership(h.runtime, person.userId, otherMerchantId, 'viewer');
    me = await signInAs(h, person);
  });
  after(() => h.close());

  const post = (path: string, body?: unknown) => callAs(h, me, 'POST', path, { body });
  /** The audit log as the first merchant's owner reads it, oldest first, of the person only. */
  const events = async () => {
    const page = await expectJson<{ data: Entry[] }>(
      await callAs(h, owner, 'GET', '/v1/dashboard/audit-log?limit=100', { merchantId: h.account.merchantId }),
      200,
    );
    return page.data.filter((e) => e.actor.id === person.userId).reverse();
  };
  const actionsIn = async (merchantId: string) =>
    (
      (await h.runtime.db.knex('audit_log').where({ merchant_id: merchantId, actor_id: person.userId })) as {
        action: string;
      }[]
    ).map((r) => r.action);

  it('records enrolment, new recovery codes, a recovery-code sign-in, a revoked session and removal, with no secret', async () => {
    const { secret } = await expectJson<{ secret: string }>(await post('/v1/dashboard/two-factor/enrol'), 200);
    const { recoveryCodes } = await expectJson<{ recoveryCodes: string[] }>(
      await post('/v1/dashboard/two-factor/activate', { code: codeAt(h, secret) }),
      200,
    );
    h.clock.advance(STEP);
    const fresh = await expectJson<{ recoveryCodes: string[] }>(
      await post('/v1/dashboard/two-factor/recovery-codes', { code: codeAt(h, secret) }),
      200,
    );
    await signInAs(h, person, { recoveryCode: fresh.recoveryCodes[0] });
    const other = await sessionFor(h, person);
    const revoked = await callAs(h, me, 'DELETE', `/v1/dashboard/sessions/${other.sessionId}`);
    assert.equal(revoked.status, 204);
    h.clock.advance(STEP);
    const disabled = await post('/v1/dashboard/two-factor/disable', {
      password: person.password,
      code: codeAt(h, secret),
    });
    assert.equal(disabled.status, 204);

    const seen = await events();
    // Entries of one instant (the test clock stands still between steps) have no order among themselves.
    assert.deepEqual(
      seen.map((e) => `${e.action} ${e.target}`).sort(),
      [
        'activateTwoFactor null',
        'regenerateRecoveryCodes null',
        'signInWithRecoveryCode null',
        `revokeSession sessionId=${other.sessionId}`,
        'disableTwoFactor null',
      ].sort(),
    );
    for (const e of seen) {
      assert.deepEqual(e.actor, { kind: 'user', id: person.userId, label: person.email });
      assert.equal(e.mode, null);
      assert.ok(e.at > 0);
    }
    // No secret, code or password in what owners read.
    const text = JSON.stringify(seen);
    for (const secretThing of [secret, person.password, ...recoveryCodes, ...fresh.recoveryCodes]) {
      assert.ok(!text.includes(secretThing), `the audit log shows ${secretThing}`);
    }
    // The other merchant the person belongs to has the same events.
    assert.deepEqual((await actionsIn(otherMerchantId)).sort(), seen.map((e) => e.action).sort());
  });

  it('records a lockout once, when the failed sign-in that reaches the limit locks the account', async () => {
    for (let i = 0; i < 5; i++) {
      await expectError(await postLogin(h, { email: person.email, password: 'wrong password' }), 401, 'unauthorized');
    }
    await expectError(await postLogin(h, { email: person.email, password: person.password }), 429, 'rate_limited');
    const locks = (await events()).filter((e) => e.action === 'signInLocked');
    assert.equal(locks.length, 1);
    assert.deepEqual(locks[0]!.actor, { kind: 'user', id: person.userId, label: person.email });
    assert.equal(typeof locks[0]!.details?.lockedUntil, 'number');
  });
});
