import assert from 'node:assert/strict';
import { expectError, expectJson, operations, startDashboard, UNKNOWN_DELIVERY, type Dashboard } from './harness.js';

describe('dashboard.rateLimit', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard({ config: { PAYGATE_RATE_LIMIT_RPS: '2', PAYGATE_RATE_LIMIT_BURST: '3' } });
  });
  after(() => d.close());

  it('every operation answers 429 rate_limited with Retry-After once the key’s bucket is empty', async () => {
    const m = await d.merchant();
    for (const op of operations) {
      d.harness.clock.advance(60_000);
      for (let i = 0; i < 3; i++) await m.call('GET', '/v1/dashboard/webhook-deliveries');
      const res = await m.call(op.method, op.path(UNKNOWN_DELIVERY), { body: op.body });
      await expectError(res, 429, 'rate_limited');
      assert.ok(Number(res.headers.get('retry-after')) >= 1, op.name);
    }
  });

  it('one request takes one token, and the bucket is the merchant API’s too', async () => {
    const m = await d.merchant();
    d.harness.clock.advance(60_000);
    await expectJson(await m.call('GET', '/v1/dashboard/webhook-deliveries'), 200);
    await expectJson(await m.call('GET', '/v1/merchant/payments'), 200);
    await expectJson(await m.call('GET', '/v1/dashboard/webhook-deliveries'), 200);
    await expectError(await m.call('GET', '/v1/merchant/payments'), 429, 'rate_limited');
    await expectError(await m.call('GET', '/v1/dashboard/webhook-deliveries'), 429, 'rate_limited');
    // The live key has a bucket of its own.
    await expectJson(await m.call('GET', '/v1/dashboard/webhook-deliveries', { live: true }), 200);
  });

  it('requests refused before authentication, or by the schema, spend no token', async () => {
    const m = await d.merchant();
    d.harness.clock.advance(60_000);
    for (let i = 0; i < 5; i++) {
      await expectError(
        await m.call('GET', '/v1/dashboard/webhook-deliveries', { headers: { 'Merchant-Id': null } }),
        400,
        'missing_merchant_id',
      );
      await expectError(await m.call('GET', '/v1/dashboard/webhook-deliveries?limit=0'), 400, 'params_validation');
    }
    for (let i = 0; i < 3; i++) await expectJson(await m.call('GET', '/v1/dashboard/webhook-deliveries'), 200);
  });
});
