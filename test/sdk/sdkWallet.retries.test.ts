import assert from 'node:assert/strict';
import { backoff, retryAfterMs } from '@paygate/client-core';
import { DEFAULT_RETRY, PaygateError } from '@paygate/sdk-wallet';
import { startWalletHarness, type WalletHarness } from './walletHelpers.js';
import { eventually } from '../helpers/wait.js';

const UNKNOWN_ID = 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd';
const unavailable = {
  kind: 'respond',
  status: 503,
  body: { code: 'internal_error', message: 'Shutting down.' },
} as const;

describe('sdkWallet.retries', () => {
  let h: WalletHarness;
  before(async () => {
    h = await startWalletHarness();
  });
  after(() => h.close());
  beforeEach(() => h.sleeps.splice(0));

  it('503 to the first requests, then the real answer: retried with jittered backoff, then it succeeds', async () => {
    const { paymentId } = await h.createPayment();
    const path = `/v1/gateway/payment/${paymentId}`;
    for (let i = 0; i < 2; i++) h.proxy.failNext({ method: 'GET', path }, unavailable);
    const randoms = [0.5, 0.25];
    const wallet = h.wallet({ retry: { baseDelayMs: 100, maxDelayMs: 1000, random: () => randoms.shift()! } });
    const from = h.proxy.log.length;
    assert.equal((await wallet.getPayment(paymentId)).status, 'requires_action');
    assert.deepEqual(h.exchanges(from), [`GET ${path} → 503`, `GET ${path} → 503`, `GET ${path} → 200`]);
    // Full jitter under a doubling ceiling: 0.5 × 100, then 0.25 × 200.
    assert.deepEqual(h.sleeps, [50, 50]);
  });

  it('POSTs are retried too: a cancel whose answer was lost is sent again and answers cancelled', async () => {
    const { paymentId } = await h.createPayment();
    const path = `/v1/gateway/payment/${paymentId}/cancel`;
    h.proxy.failNext({ method: 'POST', path }, { kind: 'fail-after-forward' });
    const from = h.proxy.log.length;
    const cancelled = await h.wallet().cancelPayment(paymentId);
    assert.deepEqual(h.exchanges(from), [`POST ${path} → 502`, `POST ${path} → 200`]);
    assert.equal(cancelled.status, 'cancelled');
    const [first, retry] = h.proxy.log.slice(from);
    assert.equal(retry!.body, first!.body, 'the same request again');
  });

  it('a network failure (the proxy destroys the socket) is retried', async () => {
    const { paymentId } = await h.createPayment();
    const path = `/v1/gateway/payment/${paymentId}/status`;
    h.proxy.failNext({ method: 'GET', path }, { kind: 'drop' });
    h.proxy.failNext({ method: 'GET', path }, { kind: 'drop-after-forward' });
    const from = h.proxy.log.length;
    assert.equal((await h.wallet().getPaymentStatus(paymentId)).status, 'requires_action');
    assert.deepEqual(h.exchanges(from), [`GET ${path} → dropped`, `GET ${path} → dropped`, `GET ${path} → 200`]);
    assert.equal(h.sleeps.length, 2);
  });

  it('gives up after `retries`: the last 5xx as a PaygateError, a network failure as fetch’s TypeError', async () => {
    const { paymentId } = await h.createPayment();
    const path = `/v1/gateway/payment/${paymentId}`;
    for (let i = 0; i < 3; i++) h.proxy.failNext({ method: 'GET', path }, unavailable);
    let from = h.proxy.log.length;
    const error = await h
      .wallet()
      .getPayment(paymentId)
      .catch((e: unknown) => e);
    assert.ok(error instanceof PaygateError);
    assert.deepEqual([error.status, error.code, error.message], [503, 'internal_error', 'Shutting down.']);
    assert.equal(h.proxy.log.length - from, 3);

    for (let i = 0; i < 3; i++) h.proxy.failNext({ method: 'GET', path }, { kind: 'drop' });
    from = h.proxy.log.length;
    await assert.rejects(h.wallet().getPayment(paymentId), TypeError);
    assert.equal(h.proxy.log.length - from, 3);
  });

  it('4xx and 501 are not retried', async () => {
    const path = `/v1/gateway/payment/${UNKNOWN_ID}/status`;
    h.proxy.failNext(
      { method: 'GET', path },
      { kind: 'respond', status: 501, body: { code: 'internal_error', message: 'No.' } },
    );
    const from = h.proxy.log.length;
    await assert.rejects(h.wallet().getPaymentStatus(UNKNOWN_ID), { status: 501 });
    await assert.rejects(h.wallet().getPaymentStatus(UNKNOWN_ID), { status: 404, code: 'payment_not_found' });
    await assert.rejects(h.wallet({ apiKey: 'wk_test_nope' }).getPaymentStatus(UNKNOWN_ID), { status: 401 });
    assert.equal(h.proxy.log.length - from, 3);
    assert.deepEqual(h.sleeps, []);
  });

  it('429 waits at least Retry-After; one beyond a minute is not waited for', async () => {
    const path = `/v1/gateway/payment/${UNKNOWN_ID}`;
    const limited = (seconds: string) =>
      h.proxy.failNext(
        { method: 'GET', path },
        {
          kind: 'respond',
          status: 429,
          body: { code: 'rate_limited', message: 'Slow down.' },
          headers: { 'Retry-After': seconds },
        },
      );
    limited('2');
    await assert.rejects(h.wallet().getPayment(UNKNOWN_ID), { code: 'payment_not_found' });
    assert.deepEqual(h.sleeps, [2000]);

    limited('120');
    await assert.rejects(h.wallet().getPayment(UNKNOWN_ID), { status: 429, code: 'rate_limited' });
    assert.deepEqual(h.sleeps, [2000]);
  });

  it('the caller’s signal aborts the wait between retries, with the real timer', async () => {
    const { paymentId } = await h.createPayment();
    h.proxy.failNext({ method: 'GET', path: `/v1/gateway/payment/${paymentId}` }, unavailable);
    const wallet = h.wallet({
      retry: { retries: 5, baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.99, sleep: undefined },
    });
    const controller = new AbortController();
    const reason = new Error('sheet closed');
    const from = h.proxy.log.length;
    const reading = wallet.getPayment(paymentId, { signal: controller.signal });
    // The first attempt was answered 503: the SDK now waits its (minute-long) backoff.
    await eventually('the first attempt to fail', () => h.proxy.log.slice(from).some((e) => e.outcome !== 'dropped'));
    controller.abort(reason);
    await assert.rejects(reading, (e) => e === reason);
  });

  it('backoff is full jitter under a doubling ceiling; Retry-After reads seconds and dates', () => {
    assert.deepEqual({ ...DEFAULT_RETRY }, { retries: 2, baseDelayMs: 500, maxDelayMs: 5000 });
    const settings = { baseDelayMs: 100, maxDelayMs: 1000, random: Math.random };
    for (let attempt = 0; attempt < 8; attempt++) {
      const ceiling = Math.min(1000, 100 * 2 ** attempt);
      for (let i = 0; i < 50; i++) {
        const delay = backoff(settings, attempt);
        assert.ok(delay >= 0 && delay < ceiling, `attempt ${attempt}: ${delay}`);
      }
      assert.equal(backoff({ ...settings, random: () => 0 }, attempt), 0);
    }
    assert.equal(retryAfterMs('3'), 3000);
    assert.equal(retryAfterMs('Wed, 18 Feb 2026 10:00:05 GMT', Date.UTC(2026, 1, 18, 10, 0, 0)), 5000);
    assert.equal(retryAfterMs('soon'), null);
    assert.equal(retryAfterMs(null), null);
  });
});
