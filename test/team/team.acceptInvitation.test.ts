import assert from 'node:assert/strict';
import { ApiError } from '../../server/src/errors.js';
import { findMember } from '../../server/src/db/queries/teamRows.js';
import { findUserByEmailHash } from '../../server/src/db/queries/users.js';
import {
  acceptInvitation,
  createInvitation,
  INVITATION_TTL_MS,
  lookupInvitation,
  MAX_WRONG_PASSWORDS,
} from '../../server/src/team/invitations.js';
import { verifyPassword } from '../../server/src/users/passwords.js';
import { emailHashOf } from '../../server/src/users/userAccounts.js';
import { describeEachDatabase } from '../helpers/db.js';
import { rejectsWith } from './rejects.js';
import { allCells, CHEAP_COST, PASSWORD, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

describeEachDatabase('team.acceptInvitation', (get) => {
  let w: TeamWorld;
  let merchantId: string;
  let ownerId: string;
  const cheap = { passwordCost: CHEAP_COST };

  before(async () => {
    w = await teamWorld(get());
    merchantId = await w.merchant('Acme Coffee');
    ownerId = await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
  });
  after(() => w.close());

  const invite = async (role: 'owner' | 'developer' | 'viewer' = 'developer') =>
    tokenOf((await createInvitation(w.runtime, merchantId, ownerId, role)).inviteUrl);

  it('acceptInvitation: a new email gets an account with the password and the membership, once', async () => {
    const token = await invite('developer');
    assert.deepEqual(await lookupInvitation(w.runtime, token), {
      merchantName: 'Acme Coffee',
      role: 'developer',
      expiresAt: Math.floor((w.clock.now() + INVITATION_TTL_MS) / 1000),
    });
    const email = uniqueEmail('Bo');
    const accepted = await acceptInvitation(
      w.runtime,
      { token, email: `  ${email.toUpperCase()} `, password: PASSWORD },
      cheap,
    );
    assert.equal(accepted.newUser, true);
    assert.equal(accepted.twoFactorEnabled, false);
    assert.equal(accepted.role, 'developer');
    assert.equal(accepted.merchantId, merchantId);

    const user = await findUserByEmailHash(w.runtime.db.knex, emailHashOf(w.runtime, email));
    assert.equal(user?.id, accepted.userId, 'found case-insensitively, trimmed');
    assert.match(user!.password_hash, /^scrypt\$10\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    assert.equal(await verifyPassword(PASSWORD, user!.password_hash), true);
    assert.equal(await verifyPassword(`${PASSWORD}!`, user!.password_hash), false);
    assert.equal(w.runtime.secretBox.open(user!.email_sealed, `users.email_sealed:${user!.id}`), email.toLowerCase());
    assert.equal((await findMember(w.runtime.db.knex, merchantId, accepted.userId))?.role, 'developer');

    // One use: the same link is now refused, for lookup and accept alike.
    await rejectsWith(lookupInvitation(w.runtime, token), 'invalid_params', 404, /not valid/);
    await rejectsWith(
      acceptInvitation(w.runtime, { token, email: uniqueEmail(), password: PASSWORD }, cheap),
      'invalid_params',
      404,
      /expired, been used or been revoked/,
    );
  });

  it('acceptInvitation: an existing account joins with its own password, and keeps it', async () => {
    const other = await w.merchant('Other shop');
    const email = uniqueEmail('existing');
    const userId = await w.user(email, { merchantId: other, role: 'owner' });
    const token = await invite('viewer');
    const accepted = await acceptInvitation(w.runtime, { token, email, password: PASSWORD }, cheap);
    assert.equal(accepted.userId, userId);
    assert.equal(accepted.newUser, false);
    assert.equal((await findMember(w.runtime.db.knex, merchantId, userId))?.role, 'viewer');
    assert.equal((await findMember(w.runtime.db.knex, other, userId))?.role, 'owner', 'other memberships stay');
  });

  it('acceptInvitation: a wrong password for an existing account is 401 unauthorized and changes nothing', async () => {
    const email = uniqueEmail('wrong');
    const userId = await w.user(email);
    const token = await invite();
    await rejectsWith(
      acceptInvitation(w.runtime, { token, email, password: 'not the right password' }, cheap),
      'unauthorized',
      401,
    );
    assert.equal(await findMember(w.runtime.db.knex, merchantId, userId), null);
    // The invitation stays open: the right password still works.
    assert.equal((await lookupInvitation(w.runtime, token)).role, 'developer');
    assert.equal((await acceptInvitation(w.runtime, { token, email, password: PASSWORD }, cheap)).userId, userId);
  });

  it(`acceptInvitation: ${MAX_WRONG_PASSWORDS} wrong passwords revoke the invitation`, async () => {
    const email = uniqueEmail('guess');
    await w.user(email);
    const token = await invite();
    for (let i = 1; i < MAX_WRONG_PASSWORDS; i += 1) {
      await rejectsWith(
        acceptInvitation(w.runtime, { token, email, password: `guess number ${i}!` }, cheap),
        'unauthorized',
        401,
      );
      assert.equal((await lookupInvitation(w.runtime, token)).role, 'developer', `still open after ${i}`);
    }
    await rejectsWith(
      acceptInvitation(w.runtime, { token, email, password: 'the last guess!!' }, cheap),
      'unauthorized',
      401,
      /revoked/,
    );
    await rejectsWith(acceptInvitation(w.runtime, { token, email, password: PASSWORD }, cheap), 'invalid_params', 404);
  });

  it('acceptInvitation: an account that is already a member is 409 invalid_state, and the link stays open', async () => {
    const email = uniqueEmail('member');
    await w.user(email, { merchantId, role: 'viewer' });
    const token = await invite('owner');
    await rejectsWith(
      acceptInvitation(w.runtime, { token, email, password: PASSWORD }, cheap),
      'invalid_state',
      409,
      /already a member of Acme Coffee/,
    );
    assert.equal((await lookupInvitation(w.runtime, token)).role, 'owner');
  });

  it('acceptInvitation: an account with two-factor joins but is told to sign in with a code', async () => {
    const email = uniqueEmail('totp');
    const userId = await w.user(email);
    await w.runtime.db.knex('users').where({ id: userId }).update({ totp_enabled_at: w.clock.now() });
    const accepted = await acceptInvitation(w.runtime, { token: await invite(), email, password: PASSWORD }, cheap);
    assert.equal(accepted.twoFactorEnabled, true);
    assert.equal((await findMember(w.runtime.db.knex, merchantId, userId))?.role, 'developer');
  });

  it('acceptInvitation and lookupInvitation: an expired link is 404 invalid_params (injected clock)', async () => {
    const token = await invite();
    w.clock.advance(INVITATION_TTL_MS - 1000);
    assert.equal((await lookupInvitation(w.runtime, token)).role, 'developer', 'open until the 72nd hour');
    w.clock.advance(1000);
    await rejectsWith(lookupInvitation(w.runtime, token), 'invalid_params', 404, /expired/);
    await rejectsWith(
      acceptInvitation(w.runtime, { token, email: uniqueEmail(), password: PASSWORD }, cheap),
      'invalid_params',
      404,
    );
  });

  it('acceptInvitation: an unknown or malformed token is 404 invalid_params', async () => {
    await rejectsWith(lookupInvitation(w.runtime, 'x'.repeat(43)), 'invalid_params', 404);
    await rejectsWith(
      acceptInvitation(w.runtime, { token: 'nope', email: uniqueEmail(), password: PASSWORD }, cheap),
      'invalid_params',
      404,
    );
  });

  it('acceptInvitation: two acceptances of one link at once, one wins and the other is refused', async () => {
    const token = await invite();
    const results = await Promise.allSettled([
      acceptInvitation(w.runtime, { token, email: uniqueEmail('race'), password: PASSWORD }, cheap),
      acceptInvitation(w.runtime, { token, email: uniqueEmail('race'), password: PASSWORD }, cheap),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((refused.reason as ApiError).status, 404);
  });

  it('acceptInvitation: records who joined, with the role and address, in the audit log', async () => {
    const accepted = await acceptInvitation(
      w.runtime,
      { token: await invite('viewer'), email: uniqueEmail('audited'), password: PASSWORD, ip: '203.0.113.9' },
      cheap,
    );
    const row = await w.runtime.db
      .knex('audit_log')
      .where({ merchant_id: merchantId, action: 'acceptInvitation', actor_id: accepted.userId })
      .first();
    assert.equal(row.actor_kind, 'user');
    assert.equal(row.target, `invitationId=${accepted.invitationId}`);
    assert.equal(row.mode, null);
    assert.equal(w.runtime.secretBox.open(row.ip_sealed, `audit_log.ip_sealed:${row.id}`), '203.0.113.9');
    assert.deepEqual(JSON.parse(w.runtime.secretBox.open(row.details_sealed, `audit_log.details_sealed:${row.id}`)), {
      role: 'viewer',
      newAccount: true,
    });
  });

  it('acceptInvitation: neither the token, the email, the password nor the address is stored in clear', async () => {
    const { inviteUrl } = await createInvitation(w.runtime, merchantId, ownerId, 'developer');
    const token = tokenOf(inviteUrl);
    const email = uniqueEmail('secret');
    await acceptInvitation(w.runtime, { token, email, password: PASSWORD, ip: '198.51.100.77' }, cheap);
    const cells = await allCells(w.runtime, ['users', 'memberships', 'invitations', 'audit_log', 'login_throttle']);
    for (const secret of [token, email, email.split('@')[0]!, PASSWORD, '198.51.100.77']) {
      assert.equal(cells.toLowerCase().includes(secret.toLowerCase()), false, `found ${secret.slice(0, 6)}… in clear`);
    }
    assert.ok(cells.length > 1000, 'the rows were read');
  });
});

describeEachDatabase('team.acceptInvitation.throttled', (get) => {
  let w: TeamWorld;
  let merchantId: string;
  let ownerId: string;

  before(async () => {
    w = await teamWorld(get());
    merchantId = await w.merchant();
    ownerId = await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
  });
  after(() => w.close());

  it('acceptInvitation: the sign-in throttle sees each password check of an existing account, and a lock refuses it', async () => {
    const email = uniqueEmail('throttled');
    const userId = await w.user(email);
    const calls: string[] = [];
    let locked = false;
    const throttle = {
      reserve: async () => {
        calls.push('reserve');
        if (locked) throw new ApiError('rate_limited', 'Too many attempts.', { headers: { 'Retry-After': '900' } });
      },
      settle: async (outcome: string) => void calls.push(outcome),
    };
    const token = tokenOf((await createInvitation(w.runtime, merchantId, ownerId, 'viewer')).inviteUrl);
    const accept = (password: string) =>
      acceptInvitation(w.runtime, { token, email, password }, { passwordCost: CHEAP_COST, throttle });

    await rejectsWith(accept('a wrong password'), 'unauthorized', 401);
    locked = true;
    await rejectsWith(accept(PASSWORD), 'rate_limited', 429);
    assert.equal(
      await findMember(w.runtime.db.knex, merchantId, userId),
      null,
      'a lock refuses even the right password',
    );
    locked = false;
    assert.equal((await accept(PASSWORD)).userId, userId);
    assert.deepEqual(calls, ['reserve', 'failed', 'reserve', 'reserve', 'succeeded']);

    // A new account checks no password: the throttle is not involved.
    calls.length = 0;
    const fresh = tokenOf((await createInvitation(w.runtime, merchantId, ownerId, 'viewer')).inviteUrl);
    await acceptInvitation(
      w.runtime,
      { token: fresh, email: uniqueEmail('new'), password: PASSWORD },
      { passwordCost: CHEAP_COST, throttle },
    );
    assert.deepEqual(calls, []);
  });
});
