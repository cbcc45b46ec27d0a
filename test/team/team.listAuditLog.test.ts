import assert from 'node:assert/strict';
import { createKey } from '../../server/src/accounts/index.js';
import { listAudit, recordAudit, type AuditEntry } from '../../server/src/audit/auditLog.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { describeEachDatabase } from '../helpers/db.js';
import { rejectsWith } from './rejects.js';
import { allCells, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

describeEachDatabase('team.listAuditLog', (get) => {
  let w: TeamWorld;
  let merchantId: string;
  let otherMerchant: string;
  let ownerEmail: string;
  let ownerId: string;
  let keyId: string;
  let keyPrefix: string;
  const recorded: { action: string; at: number }[] = [];

  const entry = (over: Partial<AuditEntry>): AuditEntry => ({
    merchantId,
    mode: null,
    actor: { kind: 'user', id: ownerId },
    action: 'updateMember',
    target: null,
    details: null,
    ip: null,
    ...over,
  });

  before(async () => {
    w = await teamWorld(get());
    merchantId = await w.merchant();
    otherMerchant = await w.merchant('Other');
    ownerEmail = uniqueEmail('Owner');
    ownerId = await w.user(ownerEmail, { merchantId, role: 'owner' });
    const partnerId = (await findMerchant(w.runtime.db.knex, merchantId))!.partner_id;
    const key = await createKey({ db: w.runtime.db, now: w.clock.now }, { kind: 'merchant', mode: 'live', partnerId });
    keyId = key.key.id;
    keyPrefix = key.key.prefix;

    // Five entries: two share a millisecond (the id breaks the tie), one is another merchant's.
    await recordAudit(
      w.runtime,
      entry({ action: 'createInvitation', details: { invitationId: 'inv_1', role: 'viewer' }, ip: '203.0.113.1' }),
    );
    recorded.push({ action: 'createInvitation', at: w.clock.now() });
    w.clock.advance(1000);
    await recordAudit(
      w.runtime,
      entry({
        action: 'createWebhookEndpoint',
        mode: 'live',
        actor: { kind: 'api_key', id: keyId },
        details: { url: 'https://shop.example/hook' },
        ip: '198.51.100.2',
      }),
    );
    await recordAudit(
      w.runtime,
      entry({ action: 'rotateWebhookSecret', mode: 'live', actor: { kind: 'api_key', id: keyId } }),
    );
    w.clock.advance(1000);
    await recordAudit(
      w.runtime,
      entry({
        action: 'updateMember',
        target: `userId=${ownerId}`,
        details: { role: 'owner', previousRole: 'developer' },
        ip: '2001:db8::7',
      }),
    );
    await recordAudit(w.runtime, entry({ merchantId: otherMerchant, action: 'removeMember', ip: '192.0.2.99' }));
  });
  after(() => w.close());

  it('listAuditLog: pages newest first with a cursor until hasMore is false, covering each entry once', async () => {
    const seen: string[] = [];
    const actions: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await listAudit(w.runtime, merchantId, { limit: 2, startingAfter: cursor });
      pages += 1;
      seen.push(...page.data.map((e) => e.id));
      actions.push(...page.data.map((e) => e.action));
      assert.ok(page.data.length <= 2);
      if (!page.hasMore) {
        assert.equal(page.nextCursor, null);
        break;
      }
      assert.equal(page.nextCursor, page.data[page.data.length - 1]!.id);
      cursor = page.nextCursor!;
    }
    assert.equal(pages, 2);
    assert.equal(new Set(seen).size, 4, 'no entry twice, none of another merchant');
    assert.equal(actions[0], 'updateMember');
    assert.equal(actions[3], 'createInvitation');
    assert.deepEqual(actions.slice(1, 3).sort(), ['createWebhookEndpoint', 'rotateWebhookSecret']);
    const all = await listAudit(w.runtime, merchantId, {});
    assert.deepEqual(
      all.data.map((e) => e.id),
      seen,
      'the default page holds all four in the same order',
    );
    const times = all.data.map((e) => e.at);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  it('listAuditLog: opens details and addresses, and labels a user by email and a key by prefix', async () => {
    const { data } = await listAudit(w.runtime, merchantId, { limit: 100 });
    const byAction = new Map(data.map((e) => [e.action, e]));
    assert.deepEqual(byAction.get('updateMember'), {
      id: byAction.get('updateMember')!.id,
      at: Math.floor(w.clock.now() / 1000),
      actor: { kind: 'user', id: ownerId, label: ownerEmail.toLowerCase() },
      action: 'updateMember',
      target: `userId=${ownerId}`,
      mode: null,
      ip: '2001:db8::7',
      details: { role: 'owner', previousRole: 'developer' },
    });
    const endpoint = byAction.get('createWebhookEndpoint')!;
    assert.deepEqual(endpoint.actor, { kind: 'api_key', id: keyId, label: keyPrefix });
    assert.equal(endpoint.mode, 'live');
    assert.deepEqual(endpoint.details, { url: 'https://shop.example/hook' });
    assert.equal(byAction.get('rotateWebhookSecret')!.ip, null);
    assert.equal(byAction.get('rotateWebhookSecret')!.details, null);
    assert.equal(byAction.get('createInvitation')!.at, Math.floor(recorded[0]!.at / 1000));
  });

  it('listAuditLog: a startingAfter that names no entry of this merchant is 404 invalid_params', async () => {
    await rejectsWith(
      listAudit(w.runtime, merchantId, { startingAfter: 'aud_000000000000000000000000' }),
      'invalid_params',
      404,
    );
    const foreign = await listAudit(w.runtime, otherMerchant, {});
    assert.equal(foreign.data.length, 1);
    await rejectsWith(listAudit(w.runtime, merchantId, { startingAfter: foreign.data[0]!.id }), 'invalid_params', 404);
  });

  it('listAuditLog: the rows hold neither an address, a detail nor an email in clear', async () => {
    const cells = await allCells(w.runtime, ['audit_log']);
    for (const clear of ['203.0.113.1', '198.51.100.2', '2001:db8::7', 'shop.example', 'previousRole', 'inv_1']) {
      assert.equal(cells.includes(clear), false, `found ${clear} in clear`);
    }
    assert.ok(cells.includes('createWebhookEndpoint'), 'the action itself is not secret');
  });
});
