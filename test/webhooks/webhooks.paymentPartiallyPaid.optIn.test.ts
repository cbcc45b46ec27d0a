/**
 * Issue 31 finding 1, the merchant's webhooks (docs/decisions.md §26.26): 5 of 12.50 TUSD reach a collected payment's
 * deposit address on the run's anvil. An endpoint on the seven default types gets no `payment.partially_paid`; one
 * that names it gets it, signed, with what arrived and what is left; the rest then arrives and the usual
 * `payment.succeeded` follows, with no second partial event. A partly paid payment that expires says so once more,
 * with its refund state. Both databases: the arrival is told once, under the payment's row lock.
 */
import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import { LOCAL } from '../gateway/checkout.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { createEndpoint, DEFAULT_EVENT_TYPES, updateEndpointSettings } from '../../server/src/webhooks/endpoints.js';
import { startDetectionHarness, type DetectionHarness } from '../settlement/detection.js';

interface Event {
  id: string;
  type: string;
  data: Record<string, unknown> & { payment_id: string };
}

describeEachDatabase('webhooks.paymentPartiallyPaid', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  let receiver: Receiver;
  let webhook: Webhook;
  before(async () => {
    h = await startDetectionHarness({ db: get().db, config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    receiver = await startReceiver();
    const { secret } = await createEndpoint(h.runtime, h.account.merchantId, 'test', { url: receiver.url });
    webhook = new Webhook(secret, { now: () => Math.floor(h.clock.now() / 1000) });
  });
  after(async () => {
    await receiver.close();
    await h.close();
  });
  beforeEach(() => h.startAtHead());

  const eventsOf = (paymentId: string) =>
    receiver.received
      .filter((r) => (JSON.parse(r.body) as Event).data.payment_id === paymentId)
      .map((r) => webhook.verify(r.body, r.headers) as unknown as Event);
  const drive = (what: string, done: () => boolean) =>
    driveJobsUntil(what, { clock: h.clock, drain: () => h.runtime.jobs.drain() }, done, { maxAdvanceMs: 10_000 });
  const subscribe = (types: readonly string[]) =>
    updateEndpointSettings(h.runtime, h.account.merchantId, 'test', { eventTypes: [...types] });
  const tusd = (value: string) => ({ unit: `caip19/${h.tusd}`, value });

  it('an endpoint on the default types gets no payment.partially_paid when 5 of 12.50 TUSD arrive', async () => {
    await subscribe(DEFAULT_EVENT_TYPES);
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    await h.pay(await h.buyer(), deposit, 5_000_000n);
    await h.scan();
    await drive('the payment.created delivery', () => eventsOf(paymentId).some((e) => e.type === 'payment.created'));
    await h.runtime.jobs.drain();
    assert.deepEqual(
      eventsOf(paymentId).map((e) => e.type),
      ['payment.created'],
    );
  });

  it('an endpoint that names it gets payment.partially_paid with the amounts, then payment.succeeded', async () => {
    await subscribe([...DEFAULT_EVENT_TYPES, 'payment.partially_paid']);
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const first = await h.pay(buyer, deposit, 5_000_000n);
    await h.scan();
    // A scan again finds nothing new: the arrival is told once.
    await h.scan();
    await drive('the partial event', () => eventsOf(paymentId).some((e) => e.type === 'payment.partially_paid'));
    const partial = eventsOf(paymentId).filter((e) => e.type === 'payment.partially_paid');
    assert.equal(partial.length, 1);
    assert.deepEqual(partial[0]!.data, {
      payment_id: paymentId,
      live: false,
      status: 'requires_action',
      amount: { unit: 'iso4217/USD', value: '1250' },
      chain_caip2: LOCAL,
      asked: tusd('12500000'),
      received: tusd('5000000'),
      remaining: tusd('7500000'),
      tx_id: first.hash,
      refund_state: 'none',
    });

    await h.pay(buyer, deposit, 7_500_000n);
    await h.scan();
    await drive('the succeeded event', () => eventsOf(paymentId).some((e) => e.type === 'payment.succeeded'));
    assert.equal(eventsOf(paymentId).filter((e) => e.type === 'payment.partially_paid').length, 1);
  });

  it('a partly paid payment that expires sends payment.partially_paid again, expired and to refund', async () => {
    await subscribe(['payment.partially_paid']);
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    const deposit = await h.depositFor(paymentId);
    await h.pay(await h.buyer(), deposit, 5_000_000n);
    await h.scan();
    h.clock.advance(3_600_000);
    await h.scan();
    assert.equal((await h.payment(paymentId)).status, 'expired');
    await drive('both partial events', () => eventsOf(paymentId).length === 2);
    // Two deliveries, attempted by separate jobs: they may arrive in either order.
    const events = eventsOf(paymentId);
    const open = events.find((e) => e.data.status === 'requires_action');
    const ended = events.find((e) => e.data.status !== 'requires_action');
    assert.deepEqual([open?.data.refund_state], ['none']);
    assert.deepEqual(
      [ended!.data.status, ended!.data.refund_state, ended!.data.received, ended!.data.remaining],
      ['expired', 'to_refund', tusd('5000000'), tusd('7500000')],
    );
  });
});
