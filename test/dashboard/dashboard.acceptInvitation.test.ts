/**
 * The team operations over HTTP with real sessions (contract-checked answers): an owner invites, the link is read
 * and accepted without a credential, the newcomer is signed in, and the audit log shows both changes.
 */
import assert from 'node:assert/strict';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, cookieOf, createPerson, signInAs, type Person, type SignedIn } from './people.js';

describe('dashboard.acceptInvitation', () => {
  let h: Harness;
  let owner: Person;
  let me: SignedIn;
  const noCredential = { 'Api-Key': null, 'Merchant-Id': null };

  before(async () => {
    h = await startHarness();
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    me = await signInAs(h, owner);
  });
  after(() => h.close());

  const asOwner = (method: string, path: string, body?: unknown) =>
    callAs(h, me, method, path, { body, merchantId: h.account.merchantId });

  it('acceptInvitation: invite, read the link, join with a new account signed in, then see it in the team and audit log', async () => {
    const created = await expectJson<{ invitation: { id: string }; inviteUrl: string }>(
      await asOwner('POST', '/v1/dashboard/team/invitations', { role: 'developer' }),
      201,
    );
    assert.match(created.inviteUrl, /\/dashboard\/invite#[A-Za-z0-9_-]{43}$/);
    const token = created.inviteUrl.split('#')[1]!;

    const preview = await expectJson<{ role: string }>(
      await h.call('POST', '/v1/dashboard/invitations/lookup', { body: { token }, headers: noCredential }),
      200,
    );
    assert.equal(preview.role, 'developer');

    // A second later, so the lists' order (by time) does not depend on random ids.
    h.clock.advance(1000);
    const email = `joiner.${Date.now()}@shop.example.com`;
    const res = await h.call('POST', '/v1/dashboard/invitations/accept', {
      body: { token, email, password: 'a long and unique passphrase' },
      headers: noCredential,
    });
    const { setCookie } = cookieOf(res.clone());
    assert.match(setCookie, /HttpOnly/);
    const body = await expectJson<{ status: string; session: { memberships: { merchantId: string; role: string }[] } }>(
      res,
      200,
    );
    assert.equal(body.status, 'signed_in');
    assert.deepEqual(
      body.session.memberships.map((m) => [m.merchantId, m.role]),
      [[h.account.merchantId, 'developer']],
    );

    const team = await expectJson<{ members: { email: string; role: string }[]; invitations: unknown[] }>(
      await asOwner('GET', '/v1/dashboard/team'),
      200,
    );
    assert.deepEqual(
      team.members.map((m) => [m.email, m.role]),
      [
        [owner.email, 'owner'],
        [email, 'developer'],
      ],
    );
    assert.deepEqual(team.invitations, []);

    const audit = await expectJson<{ data: { action: string; actor: { label: string }; details: unknown }[] }>(
      await asOwner('GET', '/v1/dashboard/audit-log'),
      200,
    );
    const actions = audit.data.map((e) => [e.action, e.actor.label]);
    assert.deepEqual(actions.slice(0, 2), [
      ['acceptInvitation', email],
      ['createInvitation', owner.email],
    ]);
    assert.equal(JSON.stringify(audit.data).includes(token), false, 'the token never reaches the audit log');

    // The link is used up.
    await expectError(
      await h.call('POST', '/v1/dashboard/invitations/lookup', { body: { token }, headers: noCredential }),
      404,
      'invalid_params',
    );
  });

  it('updateMember and removeMember: the last owner is refused 409 invalid_state; a developer may not see the team', async () => {
    await expectError(
      await asOwner('PATCH', `/v1/dashboard/team/members/${owner.userId}`, { role: 'viewer' }),
      409,
      'invalid_state',
    );
    await expectError(await asOwner('DELETE', `/v1/dashboard/team/members/${owner.userId}`), 409, 'invalid_state');

    const dev = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'developer' });
    const devSession = await signInAs(h, dev);
    await expectError(
      await callAs(h, devSession, 'GET', '/v1/dashboard/team', { merchantId: h.account.merchantId }),
      403,
      'forbidden',
    );
    const changed = await expectJson<{ role: string }>(
      await asOwner('PATCH', `/v1/dashboard/team/members/${dev.userId}`, { role: 'viewer' }),
      200,
    );
    assert.equal(changed.role, 'viewer');
    assert.equal((await asOwner('DELETE', `/v1/dashboard/team/members/${dev.userId}`)).status, 204);
    await expectError(
      await callAs(h, devSession, 'GET', '/v1/dashboard/overview', { merchantId: h.account.merchantId }),
      403,
      'forbidden',
    );
  });
});
