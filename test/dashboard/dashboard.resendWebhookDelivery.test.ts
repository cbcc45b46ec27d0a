import assert from 'node:assert/strict';
import {
  expectError,
  expectJson,
  onlyDelivery,
  seconds,
  startDashboard,
  UNKNOWN_DELIVERY,
  type Dashboard,
  type Delivery,
  type Merchant,
} from './harness.js';

const path = (id: string) => `/v1/dashboard/webhook-deliveries/${id}/resend`;

describe('dashboard.resendWebhookDelivery', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());
  afterEach(() => {
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
  });

  /** A merchant with an endpoint and one failed delivery (8 attempts). */
  async function failedDelivery(): Promise<{ m: Merchant; secret: string; failed: Delivery }> {
    const m = await d.merchant();
    const { secret } = await m.createEndpoint();
    d.receiver.respond = (_req, res) => res.writeHead(500).end();
    await m.createPayment();
    await d.drain();
    await d.exhaust();
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    const failed = await onlyDelivery(m);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attemptCount, 8);
    return { m, secret, failed };
  }

  it('202: a new delivery of the same event, with fresh attempts; the original is left as it is', async () => {
    const { m, secret, failed } = await failedDelivery();
    const resent = await expectJson<Delivery>(await m.call('POST', path(failed.id)), 202);
    const now = seconds(d.harness.clock.now());
    assert.notEqual(resent.id, failed.id);
    assert.deepEqual(resent, {
      ...failed,
      id: resent.id,
      trigger: 'resend',
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      createdAt: now,
      deliveredAt: null,
      attempts: [],
    });
    await d.drain();
    const hits = m.received();
    const last = hits.at(-1)!;
    assert.equal(last.headers['webhook-id'], failed.eventId);
    assert.equal(last.body, hits[0]!.body, 'the same body');
    d.verifier(secret).verify(last.body, last.headers);
    const after = await expectJson<Delivery>(await m.call('GET', `/v1/dashboard/webhook-deliveries/${resent.id}`), 200);
    assert.equal(after.status, 'delivered');
    const original = await expectJson<Delivery>(
      await m.call('GET', `/v1/dashboard/webhook-deliveries/${failed.id}`),
      200,
    );
    assert.equal(original.status, 'failed');
    assert.equal(original.attemptCount, 8);
  });

  it('any status can be resent: a delivered one, and a test event keeps its own body', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const { delivery } = await expectJson<{ delivery: Delivery }>(
      await m.call('POST', '/v1/dashboard/webhook-endpoint/test', { body: { type: 'payment.failed' } }),
      202,
    );
    await d.drain();
    const resent = await expectJson<Delivery>(await m.call('POST', path(delivery.id)), 202);
    assert.equal(resent.trigger, 'resend');
    assert.equal(resent.paymentId, delivery.paymentId);
    await d.drain();
    const [first, second] = m.received();
    assert.equal(second!.body, first!.body);
  });

  it('400 params_validation for a malformed id', async () => {
    const m = await d.merchant();
    await expectError(await m.call('POST', path('whd_0')), 400, 'params_validation');
  });

  it('404 invalid_params for an unknown id, another mode’s or another merchant’s delivery', async () => {
    const { m, failed } = await failedDelivery();
    await expectError(await m.call('POST', path(UNKNOWN_DELIVERY)), 404, 'invalid_params');
    await expectError(await m.call('POST', path(failed.id), { live: true }), 404, 'invalid_params');
    const other = await d.merchant();
    await expectError(await other.call('POST', path(failed.id)), 404, 'invalid_params');
    const res = await m.call('POST', path(failed.id), { headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } });
    await expectError(res, 404, 'merchant_not_found');
  });

  it('409 invalid_state when the endpoint is disabled, or was deleted (deliveries never move)', async () => {
    const { m, failed } = await failedDelivery();
    await expectJson(await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { enabled: false } }), 200);
    assert.match(await expectError(await m.call('POST', path(failed.id)), 409, 'invalid_state'), /disabled/);
    assert.equal((await m.call('DELETE', '/v1/dashboard/webhook-endpoint')).status, 204);
    await m.createEndpoint();
    const message = await expectError(await m.call('POST', path(failed.id)), 409, 'invalid_state');
    assert.match(message, new RegExp(`deleted endpoint ${failed.endpointId}`));
    assert.equal((await m.deliveries()).length, 1, 'nothing was created');
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    const { m, failed } = await failedDelivery();
    await expectError(await m.call('POST', `${path(failed.id)}?force=1`), 400, 'invalid_params');
  });
});
