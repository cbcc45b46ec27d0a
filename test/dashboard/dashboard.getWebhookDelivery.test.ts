import assert from 'node:assert/strict';
import {
  expectError,
  expectJson,
  onlyDelivery,
  startDashboard,
  UNKNOWN_DELIVERY,
  type Dashboard,
  type Delivery,
  type Merchant,
} from './harness.js';

const path = (id: string) => `/v1/dashboard/webhook-deliveries/${id}`;

describe('dashboard.getWebhookDelivery', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());
  afterEach(() => {
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
  });

  const get = async (m: Merchant, id: string) => expectJson<Delivery>(await m.call('GET', path(id)), 200);

  it('200: the delivery with its finished attempts, each startedAt the webhook-timestamp it carried', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    d.receiver.respond = (_req, res) => res.writeHead(500).end('{"error":"database unavailable"}');
    await m.createPayment();
    await d.drain();
    const { id } = await onlyDelivery(m);
    const pending = await get(m, id);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.attemptCount, 1);
    assert.equal(pending.nextAttemptAt, pending.attempts![0]!.startedAt + 5);

    d.receiver.respond = (_req, res) => res.writeHead(200).end('{"received":true}');
    d.harness.clock.advance(5_000);
    await d.harness.runtime.sweep();
    await d.drain();
    const delivered = await get(m, id);
    const hits = m.received();
    assert.equal(delivered.status, 'delivered');
    assert.equal(delivered.attemptCount, 2);
    assert.equal(delivered.nextAttemptAt, null);
    assert.deepEqual(
      delivered.attempts!.map((a) => ({ ...a, latencyMs: 0 })),
      [
        {
          attempt: 1,
          startedAt: Number(hits[0]!.headers['webhook-timestamp']),
          status: 500,
          latencyMs: 0,
          error: null,
          responseBody: '{"error":"database unavailable"}',
          outcome: 'failed',
        },
        {
          attempt: 2,
          startedAt: Number(hits[1]!.headers['webhook-timestamp']),
          status: 200,
          latencyMs: 0,
          error: null,
          responseBody: '{"received":true}',
          outcome: 'delivered',
        },
      ],
    );
    assert.ok(delivered.attempts!.every((a) => Number.isInteger(a.latencyMs) && a.latencyMs >= 0));
    assert.equal(delivered.deliveredAt, delivered.attempts![1]!.startedAt);
  });

  it('an attempt without an answer has status null and says why; only the first 4 KB of an answer are kept', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    d.receiver.respond = () => undefined;
    await m.createPayment();
    await d.drain();
    const { id } = await onlyDelivery(m);
    d.receiver.respond = (_req, res) => res.writeHead(503).end('x'.repeat(10_000));
    d.harness.clock.advance(5_000);
    await d.harness.runtime.sweep();
    await d.drain();
    const [timeout, big] = (await get(m, id)).attempts!;
    assert.equal(timeout!.status, null);
    assert.equal(timeout!.responseBody, null);
    assert.match(timeout!.error!, /timed out/);
    assert.equal(timeout!.outcome, 'failed');
    assert.equal(big!.status, 503);
    assert.equal(big!.responseBody!.length, 4096);
  });

  it('400 params_validation for a malformed id', async () => {
    const m = await d.merchant();
    await expectError(await m.call('GET', path('whd_short')), 400, 'params_validation');
    await expectError(await m.call('GET', path('pay_AAAAAAAAAAAAAAAAAAAAAAAA')), 400, 'params_validation');
  });

  it('404 invalid_params for an unknown id, another mode’s or another merchant’s delivery', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await m.createPayment();
    await d.drain();
    const { id } = await onlyDelivery(m);
    assert.equal(
      await expectError(await m.call('GET', path(UNKNOWN_DELIVERY)), 404, 'invalid_params'),
      `No webhook delivery with id ${UNKNOWN_DELIVERY}.`,
    );
    await expectError(await m.call('GET', path(id), { live: true }), 404, 'invalid_params');
    const sibling = await d.merchant({ partnerId: m.account.partnerId });
    await expectError(await sibling.call('GET', path(id)), 404, 'invalid_params');
  });

  it('404 merchant_not_found for an unknown Merchant-Id', async () => {
    const m = await d.merchant();
    const res = await m.call('GET', path(UNKNOWN_DELIVERY), { headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } });
    await expectError(res, 404, 'merchant_not_found');
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    const m = await d.merchant();
    await expectError(await m.call('GET', `${path(UNKNOWN_DELIVERY)}?expand=attempts`), 400, 'invalid_params');
  });
});
