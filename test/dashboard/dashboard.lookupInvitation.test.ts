/**
 * The invitation link's two open operations over HTTP without any credential, with contract-checked answers: reading a
 * link, and accepting it for accounts that are not signed in by it (two-factor, wrong password, short password).
 */
import assert from 'node:assert/strict';
import { createInvitation } from '../../server/src/team/invitations.js';
import { createUser } from '../../server/src/users/userAccounts.js';
import { insertMembership } from '../../server/src/db/queries/teamRows.js';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { PASSWORD, uniqueEmail } from '../team/teamFixtures.js';

const noCredential = { 'Api-Key': null, 'Merchant-Id': null };

describe('dashboard.lookupInvitation', () => {
  let h: Harness;
  let ownerId: string;

  before(async () => {
    h = (await startHarness()).withHeaders(noCredential);
    ({ id: ownerId } = await createUser(h.runtime, { email: uniqueEmail('owner'), password: PASSWORD }));
    await insertMembership(h.runtime.db.knex, {
      user_id: ownerId,
      merchant_id: h.account.merchantId,
      role: 'owner',
      created_at: h.clock.now(),
    });
  });
  after(() => h.close());

  const invite = async (role: 'developer' | 'viewer' = 'developer') => {
    const { inviteUrl } = await createInvitation(h.runtime, h.account.merchantId, ownerId, role);
    return inviteUrl.slice(inviteUrl.indexOf('#') + 1);
  };

  it('lookupInvitation: 200 with the merchant name, role and expiry, without any credential', async () => {
    const token = await invite('viewer');
    const body = await expectJson<Record<string, unknown>>(
      await h.call('POST', '/v1/dashboard/invitations/lookup', { body: { token } }),
      200,
    );
    assert.deepEqual(Object.keys(body).sort(), ['expiresAt', 'merchantName', 'role']);
    assert.equal(body.role, 'viewer');
  });

  it('lookupInvitation: an unknown token is 404 invalid_params; a missing one 400 params_validation', async () => {
    await expectError(
      await h.call('POST', '/v1/dashboard/invitations/lookup', { body: { token: 'not-a-token' } }),
      404,
      'invalid_params',
    );
    await expectError(await h.call('POST', '/v1/dashboard/invitations/lookup', { body: {} }), 400, 'params_validation');
  });

  it('acceptInvitation: an account with two-factor joins and is answered two_factor_required, without a cookie', async () => {
    const email = uniqueEmail('totp');
    const { id } = await createUser(h.runtime, { email, password: PASSWORD });
    await h.runtime.db.knex('users').where({ id }).update({ totp_enabled_at: h.clock.now() });
    const res = await h.call('POST', '/v1/dashboard/invitations/accept', {
      body: { token: await invite(), email, password: PASSWORD },
    });
    assert.equal(res.headers.get('set-cookie'), null);
    assert.deepEqual(await expectJson(res, 200), { status: 'two_factor_required' });
  });

  it('acceptInvitation: a wrong password is 401 unauthorized, a short new password 400 params_validation', async () => {
    const email = uniqueEmail('wrong');
    await createUser(h.runtime, { email, password: PASSWORD });
    const token = await invite();
    await expectError(
      await h.call('POST', '/v1/dashboard/invitations/accept', { body: { token, email, password: 'wrong password!' } }),
      401,
      'unauthorized',
    );
    await expectError(
      await h.call('POST', '/v1/dashboard/invitations/accept', {
        body: { token, email: uniqueEmail(), password: 'short' },
      }),
      400,
      'params_validation',
    );
  });

  it('acceptInvitation: an account that is already a member is 409 invalid_state', async () => {
    const email = uniqueEmail('member');
    const { id } = await createUser(h.runtime, { email, password: PASSWORD });
    await insertMembership(h.runtime.db.knex, {
      user_id: id,
      merchant_id: h.account.merchantId,
      role: 'viewer',
      created_at: h.clock.now(),
    });
    await expectError(
      await h.call('POST', '/v1/dashboard/invitations/accept', {
        body: { token: await invite(), email, password: PASSWORD },
      }),
      409,
      'invalid_state',
    );
  });
});
