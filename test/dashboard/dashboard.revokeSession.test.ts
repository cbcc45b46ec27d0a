import assert from 'node:assert/strict';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, signInAs, type Person } from './people.js';

interface SessionInfo {
  id: string;
  current: boolean;
  ip: string | null;
  userAgent: string | null;
}

describe('dashboard.revokeSession', () => {
  let h: Harness;
  let owner: Person;
  before(async () => {
    h = await startHarness();
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
  });
  after(() => h.close());

  it('listSessions and revokeSession: lists both sessions, revokes the other one, which then gets 401', async () => {
    const laptop = await signInAs(h, owner);
    h.clock.advance(1000);
    const phone = await signInAs(h, owner, {});
    const list = await expectJson<{ sessions: SessionInfo[] }>(
      await callAs(h, laptop, 'GET', '/v1/dashboard/sessions'),
      200,
    );
    assert.ok(list.sessions.length >= 2);
    const current = list.sessions.filter((s) => s.current);
    assert.equal(current.length, 1);
    assert.ok(list.sessions.every((s) => s.ip !== null));
    const other = list.sessions[0]!;
    assert.equal(other.current, false, 'newest first: the phone signed in last');

    const res = await callAs(h, laptop, 'DELETE', `/v1/dashboard/sessions/${other.id}`);
    assert.equal(res.status, 204);
    await expectError(await callAs(h, phone, 'GET', '/v1/dashboard/session'), 401, 'unauthorized');
    assert.equal((await callAs(h, laptop, 'GET', '/v1/dashboard/session')).status, 200);
    const after = await expectJson<{ sessions: SessionInfo[] }>(
      await callAs(h, laptop, 'GET', '/v1/dashboard/sessions'),
      200,
    );
    assert.ok(!after.sessions.some((s) => s.id === other.id));
  });

  it("revokeSession: 404 invalid_params for an unknown id or another user's session", async () => {
    const me = await signInAs(h, owner);
    const someone = await createPerson(h.runtime);
    const theirs = await signInAs(h, someone);
    const theirList = await expectJson<{ sessions: SessionInfo[] }>(
      await callAs(h, theirs, 'GET', '/v1/dashboard/sessions'),
      200,
    );
    await expectError(
      await callAs(h, me, 'DELETE', `/v1/dashboard/sessions/${theirList.sessions[0]!.id}`),
      404,
      'invalid_params',
    );
    await expectError(
      await callAs(h, me, 'DELETE', '/v1/dashboard/sessions/ses_AAAAAAAAAAAAAAAA'),
      404,
      'invalid_params',
    );
    assert.equal((await callAs(h, theirs, 'GET', '/v1/dashboard/session')).status, 200);
  });
});
