import assert from 'node:assert/strict';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, signInAs, type Person } from './people.js';

const MINUTE = 60_000;

describe('dashboard.getSession', () => {
  let h: Harness;
  let owner: Person;
  before(async () => {
    h = await startHarness();
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
  });
  after(() => h.close());

  const getSession = (who: { cookie: string; csrfToken: string }) => callAs(h, who, 'GET', '/v1/dashboard/session');

  it('getSession: answers the session with the same CSRF token as sign-in', async () => {
    const me = await signInAs(h, owner);
    const body = await expectJson<{ csrfToken: string; user: { id: string } }>(await getSession(me), 200);
    assert.equal(body.user.id, owner.userId);
    assert.equal(body.csrfToken, me.csrfToken);
  });

  it('getSession: 401 missing_merchant_api_key without a cookie, 401 unauthorized for an unknown token', async () => {
    await expectError(await getSession({ cookie: '', csrfToken: '' }), 401, 'missing_merchant_api_key');
    await expectError(
      await getSession({ cookie: `paygate_session=${'A'.repeat(43)}`, csrfToken: '' }),
      401,
      'unauthorized',
    );
  });

  it('getSession: the session ends after 30 idle minutes (injected clock)', async () => {
    const me = await signInAs(h, owner);
    h.clock.advance(29 * MINUTE);
    await expectJson(await getSession(me), 200);
    // The use at minute 29 moved the idle expiry to minute 59.
    h.clock.advance(29 * MINUTE);
    const body = await expectJson<{ idleExpiresAt: number }>(await getSession(me), 200);
    assert.equal(body.idleExpiresAt, Math.floor(h.clock.now() / 1000) + 30 * 60);
    h.clock.advance(30 * MINUTE);
    await expectError(await getSession(me), 401, 'unauthorized');
  });

  it('getSession: the session ends 12 hours after sign-in however it is used (injected clock)', async () => {
    const me = await signInAs(h, owner);
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      h.clock.advance(20 * MINUTE);
      const res = await getSession(me);
      assert.equal(res.status, 200, `at minute ${minutes}`);
      const body = (await res.json()) as { idleExpiresAt: number; expiresAt: number };
      assert.ok(body.idleExpiresAt <= body.expiresAt);
    }
    h.clock.advance(20 * MINUTE);
    await expectError(await getSession(me), 401, 'unauthorized');
  });

  it('getSession: records a use at most once a minute', async () => {
    const me = await signInAs(h, owner);
    const lastSeen = async () =>
      Number(
        (
          (await h.runtime.db
            .knex('dashboard_sessions')
            .where({ user_id: owner.userId })
            .max({ at: 'last_seen_at' })
            .first()) as {
            at: number;
          }
        ).at,
      );
    const start = await lastSeen();
    h.clock.advance(30_000);
    await expectJson(await getSession(me), 200);
    assert.equal(await lastSeen(), start);
    h.clock.advance(30_000);
    await expectJson(await getSession(me), 200);
    assert.equal(await lastSeen(), h.clock.now());
  });
});
