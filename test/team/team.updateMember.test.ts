import assert from 'node:assert/strict';
import type { ApiError } from '../../server/src/errors.js';
import { findMember } from '../../server/src/db/queries/teamRows.js';
import { getTeam, updateMember } from '../../server/src/team/team.js';
import { describeEachDatabase } from '../helpers/db.js';
import { rejectsWith } from './rejects.js';
import { teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

describeEachDatabase('team.updateMember', (get) => {
  let w: TeamWorld;

  before(async () => {
    w = await teamWorld(get());
  });
  after(() => w.close());

  it('updateMember: changes the role and answers the member and the previous role', async () => {
    const merchantId = await w.merchant();
    await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
    const email = uniqueEmail('dev');
    const devId = await w.user(email, { merchantId, role: 'developer' });
    const { member, previousRole } = await updateMember(w.runtime, merchantId, devId, 'viewer');
    assert.equal(previousRole, 'developer');
    assert.deepEqual(
      { userId: member.userId, email: member.email, role: member.role },
      { userId: devId, email, role: 'viewer' },
    );
    assert.equal((await findMember(w.runtime.db.knex, merchantId, devId))?.role, 'viewer');
    // Promotion to owner works too.
    await updateMember(w.runtime, merchantId, devId, 'owner');
    assert.equal((await getTeam(w.runtime, merchantId)).members.filter((m) => m.role === 'owner').length, 2);
  });

  it('updateMember: the last owner cannot be demoted (409 invalid_state), not even by themselves', async () => {
    const merchantId = await w.merchant();
    const ownerId = await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
    await w.user(uniqueEmail('dev'), { merchantId, role: 'developer' });
    await rejectsWith(updateMember(w.runtime, merchantId, ownerId, 'developer'), 'invalid_state', 409, /last owner/);
    assert.equal((await findMember(w.runtime.db.knex, merchantId, ownerId))?.role, 'owner');
    // Setting the role it already has is no demotion.
    assert.equal((await updateMember(w.runtime, merchantId, ownerId, 'owner')).member.role, 'owner');
  });

  it('updateMember: with two owners one may step down, then the other is the last', async () => {
    const merchantId = await w.merchant();
    const a = await w.user(uniqueEmail('a'), { merchantId, role: 'owner' });
    const b = await w.user(uniqueEmail('b'), { merchantId, role: 'owner' });
    await updateMember(w.runtime, merchantId, a, 'viewer');
    await rejectsWith(updateMember(w.runtime, merchantId, b, 'viewer'), 'invalid_state', 409);
  });

  it('updateMember: two owners demoting each other at once leave exactly one owner', async () => {
    const merchantId = await w.merchant();
    const a = await w.user(uniqueEmail('a'), { merchantId, role: 'owner' });
    const b = await w.user(uniqueEmail('b'), { merchantId, role: 'owner' });
    const results = await Promise.allSettled([
      updateMember(w.runtime, merchantId, a, 'developer'),
      updateMember(w.runtime, merchantId, b, 'developer'),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((refused.reason as ApiError).code, 'invalid_state');
    assert.equal((await getTeam(w.runtime, merchantId)).members.filter((m) => m.role === 'owner').length, 1);
  });

  it('updateMember: a user who is not a member of this merchant is 404 invalid_params', async () => {
    const merchantId = await w.merchant();
    await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
    const outsider = await w.user(uniqueEmail('outsider'), { merchantId: await w.merchant('Other'), role: 'viewer' });
    await rejectsWith(updateMember(w.runtime, merchantId, outsider, 'viewer'), 'invalid_params', 404);
    await rejectsWith(updateMember(w.runtime, merchantId, 'usr_unknown', 'viewer'), 'invalid_params', 404);
    assert.equal(await findMember(w.runtime.db.knex, merchantId, outsider), null);
  });
});
