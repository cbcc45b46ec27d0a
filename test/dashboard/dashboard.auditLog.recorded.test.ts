import assert from 'node:assert/strict';
import { targetOf } from '../../server/src/http/dashboardAuth.js';
import { expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, signInAs, type Person, type SignedIn } from './people.js';

interface Row {
  id: string;
  merchant_id: string;
  mode: string | null;
  at: number | string;
  actor_kind: string;
  actor_id: string;
  action: string;
  target: string | null;
  details_sealed: string | null;
  ip_sealed: string | null;
}

/** Every successful change for a merchant through the dashboard API leaves one audit row; reads and refusals none. */
describe('dashboard.auditLog.recorded', () => {
  let h: Harness;
  let owner: Person;
  let me: SignedIn;
  before(async () => {
    h = await startHarness({ config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    me = await signInAs(h, owner);
  });
  after(() => h.close());

  const rows = async () =>
    (await h.runtime.db.knex('audit_log').where({ merchant_id: h.account.merchantId }).orderBy('at')) as Row[];

  it('a change with a session: one row, present when the answer arrives, with actor, action, mode and sealed ip', async () => {
    const res = await callAs(h, me, 'POST', '/v1/dashboard/webhook-endpoint', {
      merchantId: h.account.merchantId,
      body: { url: 'http://127.0.0.1:9/hooks' },
    });
    await expectJson(res, 201);
    const all = await rows();
    assert.equal(all.length, 1);
    const row = all[0]!;
    assert.equal(row.action, 'createWebhookEndpoint');
    assert.equal(row.actor_kind, 'user');
    assert.equal(row.actor_id, owner.userId);
    assert.equal(row.mode, 'test');
    assert.equal(row.target, null);
    assert.equal(Number(row.at), h.clock.now());
    assert.match(h.runtime.secretBox.open(row.ip_sealed!, `audit_log.ip_sealed:${row.id}`), /127\.0\.0\.1/);
    // No handler set details, and the answer's signing secret is nowhere in the row.
    assert.equal(row.details_sealed, null);
    assert.ok(!JSON.stringify(row).includes('whsec_'));
  });

  it('reads and refused changes leave no row; a change with an API key leaves one with the key as actor', async () => {
    const before = (await rows()).length;
    await h.call('GET', '/v1/dashboard/webhook-endpoint');
    await h.call('POST', '/v1/dashboard/webhook-deliveries/whd_AAAAAAAAAAAAAAAAAAAAAAAA/resend');
    assert.equal((await rows()).length, before);
    const res = await h.call('DELETE', '/v1/dashboard/webhook-endpoint');
    assert.equal(res.status, 204);
    const all = await rows();
    assert.equal(all.length, before + 1);
    // The clock stands still, so rows share their time: find it by its action.
    const row = all.find((r) => r.action === 'deleteWebhookEndpoint')!;
    assert.ok(row);
    assert.equal(row.actor_kind, 'api_key');
    assert.equal(row.actor_id, h.account.testKeyId);
  });

  it('the target is the path parameters of the operation', () => {
    const route = { template: '/v1/dashboard/webhook-deliveries/{deliveryId}/resend' };
    assert.equal(
      targetOf(route, '/v1/dashboard/webhook-deliveries/whd_8sLp2VqX6nRc4TzK9mWb3HdY/resend'),
      'deliveryId=whd_8sLp2VqX6nRc4TzK9mWb3HdY',
    );
    assert.equal(targetOf({ template: '/v1/dashboard/webhook-endpoint' }, '/v1/dashboard/webhook-endpoint'), null);
  });
});
