import assert from 'node:assert/strict';
import { findMember } from '../../server/src/db/queries/teamRows.js';
import { getTeam, removeMember } from '../../server/src/team/team.js';
import { describeEachDatabase } from '../helpers/db.js';
import { rejectsWith } from './rejects.js';
import { teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

describeEachDatabase('team.removeMember', (get) => {
  let w: TeamWorld;

  before(async () => {
    w = await teamWorld(get());
  });
  after(() => w.close());

  it('removeMember: removes the membership only; the account and its other merchants stay', async () => {
    const merchantId = await w.merchant();
    await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
    const other = await w.merchant('Other');
    const devId = await w.user(uniqueEmail('dev'), { merchantId, role: 'developer' });
    await w.runtime.db
      .knex('memberships')
      .insert({ user_id: devId, merchant_id: other, role: 'viewer', created_at: 1 });
    assert.deepEqual(await removeMember(w.runtime, merchantId, devId), { previousRole: 'developer' });
    assert.equal(await findMember(w.runtime.db.knex, merchantId, devId), null);
    assert.equal((await findMember(w.runtime.db.knex, other, devId))?.role, 'viewer');
    assert.ok(await w.runtime.db.knex('users').where({ id: devId }).first());
    assert.deepEqual(
      (await getTeam(w.runtime, merchantId)).members.map((m) => m.role),
      ['owner'],
    );
    // Removing again: not a member any more.
    await rejectsWith(removeMember(w.runtime, merchantId, devId), 'invalid_params', 404);
  });

  it('removeMember: the last owner cannot remove themselves (409 invalid_state); with another owner they can', async () => {
    const merchantId = await w.merchant();
    const a = await w.user(uniqueEmail('a'), { merchantId, role: 'owner' });
    await w.user(uniqueEmail('viewer'), { merchantId, role: 'viewer' });
    await rejectsWith(removeMember(w.runtime, merchantId, a), 'invalid_state', 409, /last owner/);
    assert.equal((await findMember(w.runtime.db.knex, merchantId, a))?.role, 'owner');

    const b = await w.user(uniqueEmail('b'), { merchantId, role: 'owner' });
    await removeMember(w.runtime, merchantId, a);
    await rejectsWith(removeMember(w.runtime, merchantId, b), 'invalid_state', 409);
  });

  it('removeMember: a user of another merchant is 404 invalid_params and keeps their membership', async () => {
    const merchantId = await w.merchant();
    await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
    const other = await w.merchant('Other');
    const outsider = await w.user(uniqueEmail('outsider'), { merchantId: other, role: 'owner' });
    await rejectsWith(removeMember(w.runtime, merchantId, outsider), 'invalid_params', 404);
    assert.equal((await findMember(w.runtime.db.knex, other, outsider))?.role, 'owner');
  });
});
