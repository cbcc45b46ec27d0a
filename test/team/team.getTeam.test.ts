import assert from 'node:assert/strict';
import { acceptInvitation, createInvitation, INVITATION_TTL_MS } from '../../server/src/team/invitations.js';
import { getTeam } from '../../server/src/team/team.js';
import { describeEachDatabase } from '../helpers/db.js';
import { CHEAP_COST, PASSWORD, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

describeEachDatabase('team.getTeam', (get) => {
  let w: TeamWorld;

  before(async () => {
    w = await teamWorld(get());
  });
  after(() => w.close());

  it('getTeam: lists the members oldest first with their decrypted email, role and 2FA, and only open invitations', async () => {
    const merchantId = await w.merchant();
    const ownerEmail = uniqueEmail('Ana');
    const ownerId = await w.user(ownerEmail, { merchantId, role: 'owner' });
    const joinedOwner = Math.floor(w.clock.now() / 1000);
    await w.runtime.db.knex('users').where({ id: ownerId }).update({ totp_enabled_at: w.clock.now() });
    w.clock.advance(60_000);
    const devEmail = uniqueEmail('bo');
    const devId = await w.user(devEmail, { merchantId, role: 'developer' });
    await w.user(uniqueEmail('elsewhere'), { merchantId: await w.merchant('Other'), role: 'owner' });

    const expired = await createInvitation(w.runtime, merchantId, ownerId, 'viewer');
    w.clock.advance(INVITATION_TTL_MS);
    const used = await createInvitation(w.runtime, merchantId, ownerId, 'viewer');
    await acceptInvitation(
      w.runtime,
      { token: used.inviteUrl.split('#')[1]!, email: uniqueEmail('joined'), password: PASSWORD },
      { passwordCost: CHEAP_COST },
    );
    const open = await createInvitation(w.runtime, merchantId, ownerId, 'developer');

    const team = await getTeam(w.runtime, merchantId);
    assert.deepEqual(team.members.slice(0, 2), [
      {
        userId: ownerId,
        email: ownerEmail.toLowerCase(),
        role: 'owner',
        twoFactorEnabled: true,
        joinedAt: joinedOwner,
      },
      { userId: devId, email: devEmail, role: 'developer', twoFactorEnabled: false, joinedAt: joinedOwner + 60 },
    ]);
    assert.equal(team.members.length, 3, 'the two members and the one who accepted; nobody of another merchant');
    assert.equal(team.members[2]!.role, 'viewer');
    assert.deepEqual(team.invitations, [open.invitation]);
    assert.equal(
      team.invitations.some((i) => i.id === expired.invitation.id),
      false,
    );
  });

  it('getTeam: a merchant without members answers empty lists', async () => {
    assert.deepEqual(await getTeam(w.runtime, await w.merchant('Empty')), { members: [], invitations: [] });
  });
});
