import assert from 'node:assert/strict';
import {
  acceptInvitation,
  createInvitation,
  lookupInvitation,
  revokeInvitation,
} from '../../server/src/team/invitations.js';
import { getTeam } from '../../server/src/team/team.js';
import { describeEachDatabase } from '../helpers/db.js';
import { rejectsWith } from './rejects.js';
import { CHEAP_COST, PASSWORD, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

describeEachDatabase('team.revokeInvitation', (get) => {
  let w: TeamWorld;
  let merchantId: string;
  let ownerId: string;

  before(async () => {
    w = await teamWorld(get());
    merchantId = await w.merchant();
    ownerId = await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
  });
  after(() => w.close());

  it('revokeInvitation: the link stops working at once and leaves the list', async () => {
    const { invitation, inviteUrl } = await createInvitation(w.runtime, merchantId, ownerId, 'developer');
    await revokeInvitation(w.runtime, merchantId, invitation.id);
    await rejectsWith(lookupInvitation(w.runtime, tokenOf(inviteUrl)), 'invalid_params', 404, /revoked/);
    await rejectsWith(
      acceptInvitation(
        w.runtime,
        { token: tokenOf(inviteUrl), email: uniqueEmail(), password: PASSWORD },
        { passwordCost: CHEAP_COST },
      ),
      'invalid_params',
      404,
    );
    const listed = (await getTeam(w.runtime, merchantId)).invitations.map((i) => i.id);
    assert.equal(listed.includes(invitation.id), false);
  });

  it('revokeInvitation: a revoked, accepted, unknown or other merchant’s invitation is 404 invalid_params', async () => {
    const revoked = await createInvitation(w.runtime, merchantId, ownerId, 'viewer');
    await revokeInvitation(w.runtime, merchantId, revoked.invitation.id);
    await rejectsWith(revokeInvitation(w.runtime, merchantId, revoked.invitation.id), 'invalid_params', 404);

    const accepted = await createInvitation(w.runtime, merchantId, ownerId, 'viewer');
    await acceptInvitation(
      w.runtime,
      { token: tokenOf(accepted.inviteUrl), email: uniqueEmail(), password: PASSWORD },
      { passwordCost: CHEAP_COST },
    );
    await rejectsWith(revokeInvitation(w.runtime, merchantId, accepted.invitation.id), 'invalid_params', 404);

    await rejectsWith(revokeInvitation(w.runtime, merchantId, 'inv_0000000000000000'), 'invalid_params', 404);

    const other = await w.merchant('Other shop');
    const otherOwner = await w.user(uniqueEmail('other'), { merchantId: other, role: 'owner' });
    const foreign = await createInvitation(w.runtime, other, otherOwner, 'viewer');
    await rejectsWith(revokeInvitation(w.runtime, merchantId, foreign.invitation.id), 'invalid_params', 404);
    assert.equal((await lookupInvitation(w.runtime, tokenOf(foreign.inviteUrl))).merchantName, 'Other shop');
  });
});
