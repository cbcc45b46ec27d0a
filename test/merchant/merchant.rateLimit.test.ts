import assert from 'node:assert/strict';
import { TokenBuckets } from '../../server/src/http/rateLimit.js';
import { createPayment, expectError, expectJson, operations, startHarness, type Harness } from './harness.js';

describe('merchant.rateLimit', () => {
  describe('per API key, driven by the runtime clock', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ config: { PAYGATE_RATE_LIMIT_RPS: '2', PAYGATE_RATE_LIMIT_BURST: '3' } });
    });
    after(() => h.close());

    const list = (live = false) => h.call('GET', '/v1/merchant/payments', { live });

    it('admits a burst, then answers 429 rate_limited with Retry-After until tokens come back', async () => {
      for (let i = 0; i < 3; i++) await expectJson(await list(), 200);
      const limited = await list();
      await expectError(limited, 429, 'rate_limited');
      assert.equal(limited.headers.get('retry-after'), '1');
      // Another key of the same partner has a bucket of its own.
      await expectJson(await list(true), 200);
      // 2 per second: one token is back after half a second, and only one.
      h.clock.advance(500);
      await expectJson(await list(), 200);
      await expectError(await list(), 429, 'rate_limited');
      // A quiet period refills the bucket to the burst, never beyond it.
      h.clock.advance(60_000);
      for (let i = 0; i < 3; i++) await expectJson(await list(), 200);
      await expectError(await list(), 429, 'rate_limited');
    });

    it('every operation answers 429 once the key’s bucket is empty', async () => {
      h.clock.advance(60_000);
      const { paymentId } = await createPayment(h);
      for (const op of operations) {
        h.clock.advance(60_000);
        for (let i = 0; i < 3; i++) await h.call('GET', '/v1/merchant/payments');
        const res = await h.call(op.method, op.path(paymentId), { body: op.body });
        await expectError(res, 429, 'rate_limited');
        assert.ok(Number(res.headers.get('retry-after')) >= 1, op.name);
      }
    });

    it('requests refused before authentication do not spend the key’s tokens', async () => {
      h.clock.advance(60_000);
      for (let i = 0; i < 10; i++) {
        await expectError(
          await h.call('GET', '/v1/merchant/payments', { headers: { 'Merchant-Id': null } }),
          400,
          'missing_merchant_id',
        );
      }
      await expectJson(await list(), 200);
    });
  });

  it('Retry-After is whole seconds, at least 1, from the refill rate', async () => {
    const h = await startHarness({ config: { PAYGATE_RATE_LIMIT_RPS: '0.25', PAYGATE_RATE_LIMIT_BURST: '1' } });
    try {
      await expectJson(await h.call('GET', '/v1/merchant/payments'), 200);
      const res = await h.call('GET', '/v1/merchant/payments');
      await expectError(res, 429, 'rate_limited');
      assert.equal(res.headers.get('retry-after'), '4');
      h.clock.advance(1_500);
      assert.equal((await h.call('GET', '/v1/merchant/payments')).headers.get('retry-after'), '3');
      h.clock.advance(2_500);
      await expectJson(await h.call('GET', '/v1/merchant/payments'), 200);
    } finally {
      await h.close();
    }
  });

  describe('TokenBuckets', () => {
    it('keeps memory bounded: buckets that have refilled are dropped', () => {
      let now = 0;
      const buckets = new TokenBuckets({ rps: 10, burst: 20, now: () => now });
      for (let i = 0; i < 1000; i++) buckets.take(`key-${i}`);
      assert.equal(buckets.size, 1000);
      // 20 tokens at 10 per second: two seconds of quiet make every bucket full again, i.e. forgettable.
      now += 2_000;
      buckets.take('key-new');
      assert.equal(buckets.size, 1);
    });

    it('caps the number of buckets, dropping the least recently used', () => {
      let now = 0;
      const buckets = new TokenBuckets({ rps: 1, burst: 5, now: () => now, maxBuckets: 100 });
      for (let i = 0; i < 500; i++) buckets.take(`key-${i}`);
      assert.equal(buckets.size, 100);
      now += 1;
      assert.equal(buckets.take('key-499'), 0);
    });

    it('a clock that goes back never adds tokens', () => {
      let now = 10_000;
      const buckets = new TokenBuckets({ rps: 1, burst: 1, now: () => now });
      assert.equal(buckets.take('k'), 0);
      now -= 5_000;
      assert.equal(buckets.take('k'), 1);
    });
  });
});
