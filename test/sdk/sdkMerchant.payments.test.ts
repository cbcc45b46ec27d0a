import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PaygateError, SDK_VERSION, createMerchantClient, type PaymentSnapshot } from '@paygate/sdk-merchant';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { startSdkHarness, usd, type SdkHarness } from './helpers.js';
import { eventually } from '../helpers/wait.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('sdkMerchant.payments', () => {
  let h: SdkHarness;
  before(async () => {
    h = await startSdkHarness();
  });
  after(() => h.close());

  it('createPayment sends the key, a fresh UUID v4 Idempotency-Key and the User-Agent, and answers the 201 body', async () => {
    const from = h.proxy.log.length;
    const paygate = h.merchant({ userAgent: 'shop/2.1' });
    const created = await paygate.createPayment(usd());
    assert.match(created.paymentId, /^pay_/);
    assert.equal(created.gatewayUrl.endsWith(`/pay/${created.paymentId}`), true);
    assert.deepEqual([created.status, created.isFinal, created.pollInMs], ['pending', false, 2000]);

    const again = await paygate.createPayment(usd());
    assert.notEqual(again.paymentId, created.paymentId, 'each call is a new payment with its own key');
    const [first, second] = h.proxy.log.slice(from);
    assert.equal(first!.headers['api-key'], h.account.testKey);
    assert.equal(first!.headers['merchant-id'], h.account.merchantId);
    assert.equal(first!.headers['user-agent'], `shop/2.1 paygate-sdk-merchant/${SDK_VERSION}`);
    assert.match(String(first!.headers['idempotency-key']), UUID_V4);
    assert.notEqual(first!.headers['idempotency-key'], second!.headers['idempotency-key']);
  });

  it('createPayment with your own idempotency key answers the first payment again for the same body', async () => {
    const paygate = h.merchant();
    const key = `order-${Date.now()}`;
    const first = await paygate.createPayment(usd('990', 'order_42'), { idempotencyKey: key });
    const replay = await paygate.createPayment(usd('990', 'order_42'), { idempotencyKey: key });
    assert.deepEqual(replay, first);
    const conflict = await paygate.createPayment(usd('991', 'order_42'), { idempotencyKey: key }).catch((e) => e);
    assert.ok(conflict instanceof PaygateError);
    assert.deepEqual([conflict.code, conflict.status], ['idempotency_conflict', 409]);
  });

  it('getStatus and getPayment read the payment', async () => {
    const paygate = h.merchant();
    const { paymentId, expiresAt } = await paygate.createPayment(usd('4200', 'order_7'));
    assert.deepEqual(await paygate.getStatus(paymentId), { status: 'pending', isFinal: false, pollInMs: 2000 });
    const payment = await paygate.getPayment(paymentId);
    assert.equal(payment.payment_id, paymentId);
    assert.equal(payment.merchant_id, h.account.merchantId);
    assert.equal(payment.live, false);
    assert.equal(payment.status, 'requires_action');
    assert.equal(payment.reference_id, 'order_7');
    assert.deepEqual(payment.amount, { unit: 'iso4217/USD', value: '4200' });
    assert.equal(Date.parse(payment.expires_at), expiresAt * 1000);
  });

  it('listPayments iterates every payment across pages, newest first, fetching pages as it goes', async () => {
    // A merchant of its own, so the list holds exactly the payments made here.
    const account = await createMerchantAccount(h.runtime);
    const paygate = h.merchant({ apiKey: account.testKey, merchantId: account.merchantId });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await paygate.createPayment(usd('100', `order_${i}`))).paymentId);
      h.clock.advance(1000);
    }

    const from = h.proxy.log.length;
    const seen: string[] = [];
    for await (const payment of paygate.listPayments({ limit: 3 })) seen.push(payment.payment_id);
    assert.deepEqual(seen, [...ids].reverse());
    const requests = h.proxy.log.slice(from).map((e) => new URL(e.path, 'http://x').searchParams);
    assert.deepEqual(
      requests.map((q) => [q.get('limit'), q.get('startingAfter')]),
      [
        ['3', null],
        ['3', ids[4]],
        ['3', ids[1]],
      ],
    );

    const pages = [];
    for await (const page of paygate.listPayments({ limit: 3 }).pages()) pages.push(page);
    assert.deepEqual(
      pages.map((p) => [p.data.length, p.hasMore, p.nextCursor]),
      [
        [3, true, ids[4]],
        [3, true, ids[1]],
        [1, false, null],
      ],
    );

    // Filters go with every page; breaking out of the loop stops fetching.
    await paygate.cancel(ids[2]!);
    await paygate.cancel(ids[5]!);
    const cancelled: PaymentSnapshot[] = [];
    for await (const payment of paygate.listPayments({ status: 'cancelled', limit: 1 })) cancelled.push(payment);
    assert.deepEqual(
      cancelled.map((p) => p.payment_id),
      [ids[5], ids[2]],
    );
    const before = h.proxy.log.length;
    for await (const _ of paygate.listPayments({ limit: 2 })) break;
    assert.equal(h.proxy.log.length, before + 1);
  });

  it('waitForFinal polls at pollInMs until simulate makes the payment succeed, then settlement follows', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const from = h.proxy.log.length;
    const started = Date.now();
    const waiting = paygate.waitForFinal(paymentId);

    assert.equal((await paygate.simulate(paymentId, 'processing')).status, 'processing');
    assert.deepEqual(await paygate.getStatus(paymentId), { status: 'processing', isFinal: false, pollInMs: 2000 });
    const succeeded = await paygate.simulate(paymentId, 'succeeded');
    assert.deepEqual([succeeded.status, succeeded.success?.tx_id], ['succeeded', `test:${paymentId}`]);

    assert.deepEqual(await waiting, { status: 'succeeded', isFinal: true, pollInMs: null });
    const elapsed = Date.now() - started;
    // How many polls it took depends on how fast this machine ran the steps above (a slow one gets a poll in
    // between): what holds is that it polled until the final answer, and waited pollInMs before each next poll.
    const polls = h.proxy.log
      .slice(from)
      .filter((e) => e.method === 'GET' && e.path.endsWith(`${paymentId}/status`))
      .map((e) => (JSON.parse(e.answer) as { status: string }).status);
    assert.equal(polls.filter((s) => s === 'succeeded').length, 1, 'no poll after the final answer');
    assert.equal(polls.at(-1), 'succeeded');
    const byWaitForFinal = polls.length - 1; // One is the test's own getStatus.
    assert.ok(byWaitForFinal >= 2, `${byWaitForFinal} polls by waitForFinal`);
    assert.ok(
      elapsed >= 2000 * (byWaitForFinal - 1),
      `${byWaitForFinal} polls in ${elapsed} ms: each after the previous answer’s pollInMs`,
    );

    // Test mode settles by itself, as a job right after success.
    assert.equal((await paygate.getPayment(paymentId)).settled, null);
    await h.runtime.jobs.drain();
    const settled = await paygate.getPayment(paymentId);
    assert.equal(settled.status, 'succeeded');
    assert.ok(settled.settled !== null);
    assert.equal(settled.payment_state_version, 3);
  });

  it('waitForFinal answers at once for a final payment', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    await paygate.simulate(paymentId, 'failed');
    assert.deepEqual(await paygate.waitForFinal(paymentId), { status: 'failed', isFinal: true, pollInMs: null });
  });

  it('waitForFinal rejects with the signal’s reason when aborted, and leaves no timer behind', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const controller = new AbortController();
    const reason = new Error('the buyer closed the page');
    const from = h.proxy.log.length;
    const waiting = paygate.waitForFinal(paymentId, { signal: controller.signal });
    // The first poll answered: the SDK now waits pollInMs (2 s) before the next.
    await eventually('the first status poll', () =>
      h.proxy.log.slice(from).some((e) => e.path.includes('/status') && e.outcome === 200),
    );
    const abortedAt = Date.now();
    controller.abort(reason);
    await assert.rejects(waiting, (error) => error === reason);
    assert.ok(Date.now() - abortedAt < 1000, 'aborted during the wait, not after it');
    assert.equal(timers(), before);

    const aborted = AbortSignal.abort(reason);
    await assert.rejects(paygate.waitForFinal(paymentId, { signal: aborted }), (error) => error === reason);
  });

  it('waitForFinal with timeoutMs rejects with a TimeoutError', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const started = Date.now();
    await assert.rejects(paygate.waitForFinal(paymentId, { timeoutMs: 150 }), { name: 'TimeoutError' });
    assert.ok(Date.now() - started < 1000);
  });

  it('cancel cancels with a reason, and cancelling again answers the payment unchanged', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    const cancelled = await paygate.cancel(paymentId, { reason: 'Order cancelled' });
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(
      [cancelled.cancelled?.cancelled_by, cancelled.cancelled?.cancellation_reason],
      ['merchant', 'Order cancelled'],
    );
    assert.deepEqual(await paygate.cancel(paymentId), cancelled);
    assert.deepEqual(await paygate.getStatus(paymentId), { status: 'failed', isFinal: true, pollInMs: null });
  });

  it('refund records an off-platform refund once; a second refund is already_refunded', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    await paygate.simulate(paymentId, 'processing');
    await paygate.simulate(paymentId, 'succeeded');
    const refunded = await paygate.refund(paymentId, { reason: 'Damaged in transit' });
    assert.equal(refunded.status, 'succeeded');
    assert.equal(refunded.refunded?.reason, 'Damaged in transit');
    const again = await paygate.refund(paymentId).catch((e) => e);
    assert.ok(again instanceof PaygateError);
    assert.deepEqual([again.code, again.status], ['already_refunded', 409]);
  });

  it('createMerchantClient is the raw typed client, authenticated, with an automatic key on create', async () => {
    const client = createMerchantClient({
      baseUrl: h.proxy.url,
      apiKey: h.account.testKey,
      merchantId: h.account.merchantId,
    });
    const from = h.proxy.log.length;
    const created = await client.POST('/v1/merchant/payment', { body: usd() });
    assert.equal(created.response.status, 201);
    assert.match(String(h.proxy.log[from]!.headers['idempotency-key']), UUID_V4);
    const status = await client.GET('/v1/payments/{id}/status', { params: { path: { id: created.data!.paymentId } } });
    assert.deepEqual(status.data, { status: 'pending', isFinal: false, pollInMs: 2000 });
  });

  it('refuses incomplete options at construction', () => {
    assert.throws(
      () => h.merchant({ apiKey: '' }),
      (e) => e instanceof TypeError && /apiKey/.test(e.message),
    );
    assert.throws(() => h.merchant({ retry: { retries: -1 } }), TypeError);
  });

  it('SDK_VERSION is the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../sdk-merchant/package.json', import.meta.url), 'utf8'));
    assert.equal(SDK_VERSION, pkg.version);
  });
});
