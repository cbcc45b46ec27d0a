import assert from 'node:assert/strict';
import { backoff, retryAfterMs } from '@paygate/client-core';
import { PaygateError, type FetchLike } from '@paygate/sdk-merchant';
import { FAST_RETRY, startSdkHarness, usd, type SdkHarness } from './helpers.js';
import { eventually } from '../helpers/wait.js';

const CREATE = { method: 'POST', path: '/v1/merchant/payment' };
/** Well-formed (so it passes the contract's pattern) and naming no payment. */
const UNKNOWN_ID = 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd';

describe('sdkMerchant.retries', () => {
  let h: SdkHarness;
  before(async () => {
    h = await startSdkHarness();
  });
  after(() => h.close());

  const paymentsOf = async (referenceId: string) => {
    const found = [];
    for await (const p of h.merchant().listPayments({ limit: 100 })) if (p.reference_id === referenceId) found.push(p);
    return found;
  };

  it('createPayment retried after a lost answer (502) reuses its key: one payment, the first one', async () => {
    const paygate = h.merchant();
    h.proxy.failNext(CREATE, { kind: 'fail-after-forward' });
    const from = h.proxy.log.length;
    const created = await paygate.createPayment(usd('1250', 'order_lost_502'));
    assert.deepEqual(h.exchanges(from), ['POST /v1/merchant/payment → 502', 'POST /v1/merchant/payment → 201']);
    const [first, retry] = h.proxy.log.slice(from);
    assert.equal(retry!.headers['idempotency-key'], first!.headers['idempotency-key']);
    assert.equal(retry!.body, first!.body);
    const payments = await paymentsOf('order_lost_502');
    assert.deepEqual(
      payments.map((p) => p.payment_id),
      [created.paymentId],
      'the server created it on the first attempt; the retry was its replay',
    );
  });

  it('createPayment retried after a connection cut once the server had the request: still one payment', async () => {
    const paygate = h.merchant();
    h.proxy.failNext(CREATE, { kind: 'drop-after-forward' });
    const from = h.proxy.log.length;
    const created = await paygate.createPayment(usd('1250', 'order_cut'));
    assert.deepEqual(h.exchanges(from), ['POST /v1/merchant/payment → dropped', 'POST /v1/merchant/payment → 201']);
    assert.deepEqual(
      (await paymentsOf('order_cut')).map((p) => p.payment_id),
      [created.paymentId],
    );
  });

  it('a network failure before the server saw the request is retried (GET)', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const path = `/v1/merchant/payment/${paymentId}`;
    h.proxy.failNext({ method: 'GET', path }, { kind: 'drop' });
    const from = h.proxy.log.length;
    assert.equal((await paygate.getPayment(paymentId)).payment_id, paymentId);
    assert.deepEqual(h.exchanges(from), [`GET ${path} → dropped`, `GET ${path} → 200`]);
  });

  it('gives up after `retries` and throws the last answer; network failures surface as fetch’s TypeError', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const path = `/v1/merchant/payment/${paymentId}/status`;
    for (let i = 0; i < 3; i++) h.proxy.failNext({ method: 'GET', path }, { kind: 'fail-after-forward' });
    let from = h.proxy.log.length;
    const error = await paygate.getStatus(paymentId).catch((e: unknown) => e);
    assert.ok(error instanceof PaygateError);
    assert.deepEqual([error.status, error.code], [502, 'internal_error']);
    assert.equal(h.proxy.log.length - from, 1 + FAST_RETRY.retries);

    for (let i = 0; i < 3; i++) h.proxy.failNext({ method: 'GET', path }, { kind: 'drop' });
    from = h.proxy.log.length;
    await assert.rejects(paygate.getStatus(paymentId), TypeError);
    assert.equal(h.proxy.log.length - from, 3);
  });

  it('501 and 4xx are not retried', async () => {
    const paygate = h.merchant();
    h.proxy.failNext(
      { method: 'GET', path: `/v1/merchant/payment/${UNKNOWN_ID}/status` },
      { kind: 'respond', status: 501, body: { code: 'internal_error', message: 'Not implemented.' } },
    );
    const from = h.proxy.log.length;
    await assert.rejects(paygate.getStatus(UNKNOWN_ID), { status: 501 });
    await assert.rejects(paygate.getStatus(UNKNOWN_ID), { status: 404, code: 'payment_not_found' });
    assert.equal(h.proxy.log.length - from, 2);
  });

  it('cancel is retried after a lost answer: the retry finds it cancelled and answers it', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const path = `/v1/merchant/payment/${paymentId}/cancel`;
    h.proxy.failNext({ method: 'POST', path }, { kind: 'fail-after-forward' });
    const from = h.proxy.log.length;
    const cancelled = await paygate.cancel(paymentId, { reason: 'Out of stock' });
    assert.deepEqual(h.exchanges(from), [`POST ${path} → 502`, `POST ${path} → 200`]);
    assert.deepEqual([cancelled.status, cancelled.cancelled?.cancellation_reason], ['cancelled', 'Out of stock']);
    assert.equal(cancelled.payment_state_version, 1, 'cancelled once');
  });

  it('refund retried after a lost answer is replayed under its Idempotency-Key: one refund, its first answer', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    await paygate.simulate(paymentId, 'processing');
    await paygate.simulate(paymentId, 'succeeded');
    const path = `/v1/merchant/payment/${paymentId}/refund`;
    h.proxy.failNext({ method: 'POST', path }, { kind: 'fail-after-forward' });
    const from = h.proxy.log.length;
    const refunded = await paygate.refund(paymentId, { reason: 'Returned' });
    assert.deepEqual(h.exchanges(from), [`POST ${path} → 502`, `POST ${path} → 200`]);
    const sent = h.proxy.log.slice(from).map((r) => r.headers['idempotency-key']);
    assert.equal(new Set(sent).size, 1, 'the retry sends the first attempt key');
    assert.ok(sent[0]);
    assert.equal(refunded.refunded?.reason, 'Returned');
    // Without an ambiguous attempt before it, already_refunded is the caller's to see.
    await assert.rejects(paygate.refund(paymentId), { code: 'already_refunded' });
  });

  it('simulate is not retried after a 5xx: the step may have been taken', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const path = `/v1/merchant/test/payment/${paymentId}/simulate`;
    h.proxy.failNext({ method: 'POST', path }, { kind: 'fail-after-forward' });
    const from = h.proxy.log.length;
    await assert.rejects(paygate.simulate(paymentId, 'processing'), { status: 502 });
    assert.deepEqual(h.exchanges(from), [`POST ${path} → 502`]);
    assert.equal((await paygate.getPayment(paymentId)).status, 'processing');
  });

  it('a keyed create whose first attempt is still in flight is retried past idempotency_conflict', async () => {
    // The in-flight window is milliseconds on a real server, so the two failing answers are staged by the fetch:
    // a connection cut after sending, then the server's answer to a retry that found the key in flight.
    const sent: Request[] = [];
    const staged: (() => Response)[] = [
      () => {
        throw new TypeError('fetch failed');
      },
      () =>
        Response.json(
          { code: 'idempotency_conflict', message: 'A request with this key is in flight.' },
          { status: 409 },
        ),
    ];
    const fetch: FetchLike = async (request) => {
      sent.push(request.clone());
      const next = staged.shift();
      return next ? next() : globalThis.fetch(request);
    };
    const paygate = h.merchant({ fetch, retry: { ...FAST_RETRY, retries: 3 } });
    const created = await paygate.createPayment(usd('1250', 'order_in_flight'));
    assert.equal(sent.length, 3);
    assert.equal(new Set(sent.map((r) => r.headers.get('Idempotency-Key'))).size, 1);
    assert.deepEqual(
      (await paymentsOf('order_in_flight')).map((p) => p.payment_id),
      [created.paymentId],
    );
    // Without a retry before it, idempotency_conflict means another body under the key: the caller's to see.
    const key = sent[0]!.headers.get('Idempotency-Key')!;
    await assert.rejects(paygate.createPayment(usd('99', 'order_in_flight'), { idempotencyKey: key }), {
      code: 'idempotency_conflict',
    });
  });

  it('the caller’s signal aborts the wait between retries', async () => {
    const paygate = h.merchant({ retry: { retries: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const { paymentId } = await paygate.createPayment(usd());
    h.proxy.failNext({ method: 'GET', path: `/v1/merchant/payment/${paymentId}` }, { kind: 'fail-after-forward' });
    const reason = new Error('request cancelled');
    const controller = new AbortController();
    const from = h.proxy.log.length;
    const reading = paygate.getPayment(paymentId, { signal: controller.signal });
    // The first attempt failed: the SDK now waits its (minute-long) backoff.
    await eventually('the first attempt to fail', () => h.proxy.log.slice(from).some((e) => e.outcome === 502));
    controller.abort(reason);
    await assert.rejects(reading, (e) => e === reason);
  });

  it('backoff is full jitter under a doubling ceiling; Retry-After reads seconds and dates', () => {
    const settings = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    for (let attempt = 0; attempt < 8; attempt++) {
      const ceiling = Math.min(1000, 100 * 2 ** attempt);
      for (let i = 0; i < 50; i++) {
        const delay = backoff(settings, attempt);
        assert.ok(delay >= 0 && delay < ceiling, `attempt ${attempt}: ${delay}`);
      }
    }
    assert.equal(retryAfterMs('3'), 3000);
    assert.equal(retryAfterMs('Wed, 18 Feb 2026 10:00:05 GMT', Date.UTC(2026, 1, 18, 10, 0, 0)), 5000);
    assert.equal(retryAfterMs('soon'), null);
    assert.equal(retryAfterMs(null), null);
  });

  describe('429 with Retry-After, on a server with a low rate limit', () => {
    let limited: SdkHarness;
    before(async () => {
      // The server's clock stands still unless a test moves it, so its bucket refills only when the test says so:
      // how long a loaded machine takes between two requests cannot refill it early or leave it empty late.
      limited = await startSdkHarness({ config: { PAYGATE_RATE_LIMIT_RPS: '1', PAYGATE_RATE_LIMIT_BURST: '1' } });
    });
    after(() => limited.close());

    it('waits at least Retry-After, then succeeds; even simulate is retried, as a 429 was never applied', async () => {
      const paygate = limited.merchant();
      // The one token of the bucket.
      const { paymentId } = await paygate.createPayment(usd());
      const from = limited.proxy.log.length;
      const path = `/v1/merchant/test/payment/${paymentId}/simulate`;
      const started = Date.now();
      const simulating = paygate.simulate(paymentId, 'processing');
      await eventually('the first simulate to be refused', () => limited.proxy.log[from]?.outcome === 429);
      // A second passes on the server's clock: the bucket has its token back for the retry. The SDK's own wait is
      // real (Retry-After: 1 is a second), so the retry cannot come before this.
      limited.clock.advance(1000);
      const payment = await simulating;
      const elapsed = Date.now() - started;
      assert.equal(payment.status, 'processing');
      assert.deepEqual(limited.exchanges(from), [`POST ${path} → 429`, `POST ${path} → 200`]);
      assert.equal(limited.proxy.log[from]!.answerHeaders['retry-after'], '1');
      assert.ok(elapsed >= 990, `waited ${elapsed} ms for Retry-After: 1`);
    });

    it('with retries: 0 the 429 is the caller’s, as rate_limited', async () => {
      // The clock has not moved since the retry above took the token: the bucket is empty.
      const paygate = limited.merchant({ retry: { retries: 0 } });
      const from = limited.proxy.log.length;
      await assert.rejects(paygate.getStatus(UNKNOWN_ID), { status: 429, code: 'rate_limited' });
      assert.equal(limited.proxy.log.length - from, 1);
    });
  });

  it('a Retry-After beyond a minute is not waited for', async () => {
    const paygate = h.merchant();
    h.proxy.failNext(
      { method: 'GET', path: `/v1/merchant/payment/${UNKNOWN_ID}/status` },
      {
        kind: 'respond',
        status: 429,
        body: { code: 'rate_limited', message: 'Slow down.' },
        headers: { 'Retry-After': '120' },
      },
    );
    const from = h.proxy.log.length;
    await assert.rejects(paygate.getStatus(UNKNOWN_ID), { status: 429, code: 'rate_limited' });
    assert.equal(h.proxy.log.length - from, 1);
  });
});
