import assert from 'node:assert/strict';
import { expectError, expectJson, operations, startGatewayHarness, type GatewayHarness } from './harness.js';

/** 429 on every operation of this slice, per credential: a wallet key, or an App-Id + Client-Id pair. */
describe('gateway.rateLimit', () => {
  let h: GatewayHarness;
  let paymentId: string;
  before(async () => {
    h = await startGatewayHarness({ config: { PAYGATE_RATE_LIMIT_RPS: '2', PAYGATE_RATE_LIMIT_BURST: '3' } });
    paymentId = await h.createPayment();
  });
  after(() => h.close());

  const read = (headers: Record<string, string | null> = {}) =>
    h.call('GET', `/v1/gateway/payment/${paymentId}/status`, { headers });
  const app = (clientId: string) => ({ 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': clientId });

  it('every operation answers 429 rate_limited with Retry-After once the wallet key’s bucket is empty', async () => {
    for (const op of operations) {
      h.clock.advance(60_000);
      for (let i = 0; i < 3; i++) await expectJson(await read(), 200);
      const res = await h.call(op.method, op.path(paymentId), { body: op.body });
      await expectError(res, 429, 'rate_limited');
      assert.equal(res.headers.get('retry-after'), '1', op.name);
    }
  });

  it('an app id has one bucket per Client-Id, apart from the wallet key’s', async () => {
    h.clock.advance(60_000);
    for (let i = 0; i < 3; i++) await expectJson(await read(app('install-1')), 200);
    await expectError(await read(app('install-1')), 429, 'rate_limited');
    await expectJson(await read(app('install-2')), 200);
    await expectJson(await read(), 200);
  });

  it('requests refused before authentication spend no tokens', async () => {
    h.clock.advance(60_000);
    for (let i = 0; i < 10; i++)
      await expectError(await read({ 'App-Id': h.wallet.testApp }), 400, 'conflicting_auth_headers');
    await expectJson(await read(), 200);
  });
});
