import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createInvitation, INVITATION_TTL_MS } from '../../server/src/team/invitations.js';
import { getTeam } from '../../server/src/team/team.js';
import { describeEachDatabase } from '../helpers/db.js';
import { allCells, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

describeEachDatabase('team.createInvitation', (get) => {
  let w: TeamWorld;
  let merchantId: string;
  let ownerId: string;

  before(async () => {
    w = await teamWorld(get());
    merchantId = await w.merchant();
    ownerId = await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
  });
  after(() => w.close());

  it('createInvitation: answers a one-time link on the public URL with a 32-byte token in the fragment', async () => {
    const now = w.clock.now();
    const { invitation, inviteUrl } = await createInvitation(w.runtime, merchantId, ownerId, 'developer');
    const base = w.runtime.config.publicBaseUrl.replace(/\/+$/, '');
    const match = /^(.*)\/dashboard\/invite#([A-Za-z0-9_-]+)$/.exec(inviteUrl);
    assert.ok(match, inviteUrl);
    assert.equal(match[1], base);
    assert.equal(Buffer.from(match[2]!, 'base64url').length, 32);
    assert.match(invitation.id, /^inv_[0-9A-Za-z]{16}$/);
    assert.deepEqual(invitation, {
      id: invitation.id,
      role: 'developer',
      createdAt: Math.floor(now / 1000),
      expiresAt: Math.floor((now + INVITATION_TTL_MS) / 1000),
    });

    const row = await w.runtime.db.knex('invitations').where({ id: invitation.id }).first();
    assert.equal(row.token_hash, createHash('sha256').update(match[2]!).digest('hex'), 'only the SHA-256 is kept');
    assert.equal(row.created_by, ownerId);
    assert.equal((await allCells(w.runtime, ['invitations', 'audit_log'])).includes(match[2]!), false);
  });

  it('createInvitation: each link is new, and the open invitations are listed newest first', async () => {
    w.clock.advance(1000);
    const first = await createInvitation(w.runtime, merchantId, ownerId, 'viewer');
    w.clock.advance(1000);
    const second = await createInvitation(w.runtime, merchantId, ownerId, 'owner');
    assert.notEqual(first.inviteUrl, second.inviteUrl);
    const listed = (await getTeam(w.runtime, merchantId)).invitations;
    assert.deepEqual(listed.slice(0, 2), [second.invitation, first.invitation]);
  });
});
