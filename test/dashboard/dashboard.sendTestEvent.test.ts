import assert from 'node:assert/strict';
import {
  expectError,
  expectJson,
  resolvePublic,
  seconds,
  startDashboard,
  type Dashboard,
  type Delivery,
  type Merchant,
} from './harness.js';

const PATH = '/v1/dashboard/webhook-endpoint/test';

interface Sent {
  delivery: Delivery;
  event: {
    id: string;
    type: string;
    api_version: string;
    data: Record<string, unknown> & { payment_id: string; live: boolean };
  };
}

describe('dashboard.sendTestEvent', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
    resolvePublic(d);
  });
  after(() => d.close());

  const send = (m: Merchant, type: string, live = false) => m.call('POST', PATH, { body: { type }, live });

  it('202: a signed delivery of sample data with live = false, byte for byte the answer’s event', async () => {
    const m = await d.merchant();
    const { endpoint, secret } = await m.createEndpoint();
    const sent = await expectJson<Sent>(await send(m, 'payment.succeeded'), 202);
    const now = seconds(d.harness.clock.now());
    assert.deepEqual(sent.delivery, {
      id: sent.delivery.id,
      eventId: sent.event.id,
      eventType: 'payment.succeeded',
      paymentId: sent.event.data.payment_id,
      endpointId: endpoint.id,
      trigger: 'test',
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      createdAt: now,
      deliveredAt: null,
      attempts: [],
      attemptsPruned: false,
    });
    assert.equal(sent.event.data.live, false);
    assert.equal(sent.event.data.merchant_id, m.account.merchantId);
    assert.equal(sent.event.data.reference_id, 'test_event');
    assert.equal(sent.event.data.payment_state_version, 2);
    assert.equal(sent.event.data.status, 'succeeded');
    assert.deepEqual(sent.event.data.amount, { unit: 'iso4217/USD', value: '1250' });
    assert.equal((sent.event.data.success as { tx_id: string }).tx_id, `test:${sent.event.data.payment_id}`);
    await d.drain();
    const [hit] = m.received();
    assert.deepEqual(d.verifier(secret).verify(hit!.body, hit!.headers), sent.event);
    assert.equal(hit!.headers['webhook-id'], sent.event.id);
    const after = await expectJson<Delivery>(
      await m.call('GET', `/v1/dashboard/webhook-deliveries/${sent.delivery.id}`),
      200,
    );
    assert.equal(after.status, 'delivered');
    await expectError(
      await m.call('GET', `/v1/merchant/payment/${sent.event.data.payment_id}`),
      404,
      'payment_not_found',
    );
  });

  it('every type has the stage’s status and version, and is sent whatever the endpoint’s types', async () => {
    const m = await d.merchant();
    await m.createEndpoint({ url: m.url, eventTypes: ['payment.created'] });
    const expected: Record<string, [string, number]> = {
      'payment.created': ['requires_action', 0],
      'payment.processing': ['processing', 1],
      'payment.succeeded': ['succeeded', 2],
      'payment.failed': ['failed', 1],
      'payment.expired': ['expired', 1],
      'payment.cancelled': ['cancelled', 1],
      'payment.settled': ['succeeded', 3],
    };
    for (const [type, [status, version]] of Object.entries(expected)) {
      const { event } = await expectJson<Sent>(await send(m, type), 202);
      assert.equal(event.type, type);
      assert.equal(event.data.status, status, type);
      assert.equal(event.data.payment_state_version, version, type);
      assert.equal(
        event.data.processing !== null,
        ['payment.processing', 'payment.succeeded', 'payment.settled'].includes(type),
        type,
      );
      assert.equal(event.data.settled !== null, type === 'payment.settled', type);
    }
    await d.drain();
    assert.equal(m.received().length, 7);
  });

  it('the merchant’s fee, when configured, is in the sample', async () => {
    const feeConfig = {
      kind: 'base_plus_percent',
      base: { unit: 'iso4217/USD', value: '30' },
      percent: { numerator: '29', denominator: '1000' },
    };
    const m = await d.merchant();
    await d.harness.runtime.db
      .knex('merchants')
      .where({ id: m.account.merchantId })
      .update({ fee_config: JSON.stringify(feeConfig) });
    await m.createEndpoint();
    const { event } = await expectJson<Sent>(await send(m, 'payment.processing'), 202);
    const fee = (event.data.processing as { fee: { total_amount: { value: string } } | null }).fee;
    assert.ok(fee, 'a fee breakdown');
    assert.ok(BigInt(fee.total_amount.value) > 0n);
  });

  it('a live key sends to the live endpoint, still with live = false; the live key sees the delivery', async () => {
    const m = await d.merchant();
    const { endpoint } = await m.createEndpoint({ url: 'https://hooks.example.com/x' }, { live: true });
    // The attempt is not run: the public address is not reachable from a test.
    const sent = await expectJson<Sent>(await send(m, 'payment.created', true), 202);
    assert.equal(sent.delivery.endpointId, endpoint.id);
    assert.equal(sent.event.data.live, false);
    assert.deepEqual(
      (await m.deliveries('', { live: true })).map((x) => x.id),
      [sent.delivery.id],
    );
    assert.deepEqual(await m.deliveries(), [], 'not a test-mode delivery');
    // Fails the delivery, so no later drain in this file tries to reach the public address.
    assert.equal((await m.call('DELETE', '/v1/dashboard/webhook-endpoint', { live: true })).status, 204);
  });

  it('400: a missing or unknown type, an unknown field, an unreadable body', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await m.call('POST', PATH, { body: {} }), 400, 'params_validation');
    await expectError(await send(m, 'payment.refunded'), 400, 'params_validation');
    await expectError(
      await m.call('POST', PATH, { body: { type: 'payment.created', live: true } }),
      400,
      'params_validation',
    );
    await expectError(await m.call('POST', PATH, { raw: '{"type"' }), 400, 'invalid_params');
    await expectError(await m.call('POST', PATH, { body: 'payment.created' }), 400, 'invalid_params');
    assert.deepEqual(await m.deliveries(), []);
  });

  it('404 invalid_params without an endpoint for the mode; 404 merchant_not_found', async () => {
    const m = await d.merchant();
    assert.match(await expectError(await send(m, 'payment.created'), 404, 'invalid_params'), /test mode/);
    const res = await m.call('POST', PATH, {
      body: { type: 'payment.created' },
      headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' },
    });
    await expectError(res, 404, 'merchant_not_found');
  });

  it('409 invalid_state when the endpoint is disabled', async () => {
    const m = await d.merchant();
    const { endpoint } = await m.createEndpoint();
    await expectJson(await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { enabled: false } }), 200);
    assert.match(await expectError(await send(m, 'payment.created'), 409, 'invalid_state'), new RegExp(endpoint.id));
    assert.deepEqual(await m.deliveries(), []);
  });

  it('413 for a body over 256 KiB, 415 for another content type', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const raw = JSON.stringify({ type: 'payment.created', pad: 'x'.repeat(300 * 1024) });
    await expectError(await m.call('POST', PATH, { raw }), 413, 'invalid_params');
    const text = await m.call('POST', PATH, { raw: 'type=payment.created', headers: { 'Content-Type': 'text/plain' } });
    await expectError(text, 415, 'invalid_params');
  });
});
