/**
 * The open refund claim operations (no credential: the link's token is the capability) are limited per client
 * address and per link (http/claimRateLimit.ts), with the contract's 429 `rate_limited` and `Retry-After`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createApp, type Runtime } from '@paygate/server';
import { CLAIM_LIMITS } from '../../server/src/http/claimRateLimit.js';
import { listen, type Listening } from '../helpers/http.js';
import { expectError } from '../helpers/responses.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

describe('settlement.refundClaim.rateLimit', () => {
  let runtime: Runtime;
  let server: Listening;
  let clock: TestClock;

  beforeEach(async () => {
    // A runtime per test: the buckets live in the app's memory, and each test starts with full ones.
    clock = testClock();
    runtime = await testRuntime({ clock });
    server = await listen(createApp({ runtime, validateResponses: true }));
  });
  afterEach(async () => {
    await server.close();
    await runtime.close();
  });

  const call = (operation: 'lookup' | 'claim', token: string) =>
    fetch(`${server.url}/v1/gateway/refund-claims/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(operation === 'lookup' ? { token } : { token, address: `0x${'11'.repeat(20)}` }),
    });
  const aToken = () => randomBytes(32).toString('base64url');

  async function expectLimited(res: Response, retryAfter: number): Promise<void> {
    assert.equal(res.headers.get('Retry-After'), String(retryAfter));
    await expectError(res, 429, 'rate_limited');
  }

  it('lookup and claim of one link: its burst passes (lookup and claim counted together), then 429 with Retry-After', async () => {
    const token = aToken();
    for (let i = 0; i < CLAIM_LIMITS.perToken.burst; i++) {
      await expectError(await call(i % 2 === 0 ? 'lookup' : 'claim', token), 404, 'invalid_params');
    }
    await expectLimited(await call('lookup', token), 1 / CLAIM_LIMITS.perToken.rps);
    await expectLimited(await call('claim', token), 1 / CLAIM_LIMITS.perToken.rps);
    // Another link from the same address is not held back by this one's bucket.
    await expectError(await call('lookup', aToken()), 404, 'invalid_params');
    clock.advance(1000 / CLAIM_LIMITS.perToken.rps);
    await expectError(await call('lookup', token), 404, 'invalid_params');
    await expectLimited(await call('lookup', token), 1 / CLAIM_LIMITS.perToken.rps);
  });

  it('one client address trying many links: its burst passes, then 429 with Retry-After, whatever the link', async () => {
    for (let i = 0; i < CLAIM_LIMITS.perIp.burst; i++) {
      await expectError(await call('lookup', aToken()), 404, 'invalid_params');
    }
    const token = aToken();
    await expectLimited(await call('lookup', token), 1 / CLAIM_LIMITS.perIp.rps);
    await expectLimited(await call('claim', aToken()), 1 / CLAIM_LIMITS.perIp.rps);
    clock.advance(1000 / CLAIM_LIMITS.perIp.rps);
    // The refused requests took nothing from the link's own bucket: it is answered as soon as the address may ask.
    await expectError(await call('lookup', token), 404, 'invalid_params');
    await expectLimited(await call('lookup', aToken()), 1 / CLAIM_LIMITS.perIp.rps);
  });
});
