import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Delivery, type Merchant } from './harness.js';

interface Entry {
  at: number;
  kind: 'transition' | 'event';
  status?: string;
  event?: { id: string; type: string };
  deliveries?: Delivery[];
}

describe('dashboard.getPaymentTimeline', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const timeline = async (id: string, live = false) =>
    (
      await expectJson<{ entries: Entry[] }>(
        await m.call('GET', `/v1/dashboard/payments/${id}/timeline`, { live }),
        200,
      )
    ).entries;

  it('getPaymentTimeline interleaves transitions and events, each event with its deliveries and attempts', async () => {
    await m.createEndpoint();
    const id = await m.createPayment();
    await d.drain();
    d.harness.clock.advance(5_000);
    await expectJson(
      await m.call('POST', `/v1/dashboard/payments/${id}/simulate`, { body: { to: 'processing' } }),
      200,
    );
    d.harness.clock.advance(5_000);
    // Succeeded, then settled automatically in the same instant: the order still follows the payment's life.
    await expectJson(await m.call('POST', `/v1/dashboard/payments/${id}/simulate`, { body: { to: 'succeeded' } }), 200);
    await d.drain();
    d.harness.clock.advance(5_000);
    await expectJson(
      await m.call('POST', `/v1/dashboard/payments/${id}/refund`, { body: { reason: 'returned' } }),
      200,
    );

    const entries = await timeline(id);
    assert.deepEqual(
      entries.map((e) => (e.kind === 'transition' ? e.status : e.event!.type)),
      [
        'requires_action',
        'payment.created',
        'processing',
        'payment.processing',
        'succeeded',
        'payment.succeeded',
        'settled',
        'payment.settled',
        'refunded',
      ],
    );
    const t0 = entries[0]!.at;
    assert.deepEqual(
      entries.map((e) => e.at - t0),
      [0, 0, 5, 5, 10, 10, 10, 10, 15],
    );
    for (const e of entries.filter((x) => x.kind === 'event')) {
      assert.equal(e.deliveries!.length, 1, e.event!.type);
      const [delivery] = e.deliveries!;
      assert.equal(delivery!.eventId, e.event!.id);
      assert.equal(delivery!.status, 'delivered');
      assert.deepEqual(
        delivery!.attempts!.map((a) => [a.attempt, a.status, a.outcome]),
        [[1, 200, 'delivered']],
      );
    }
    assert.equal(m.received().length, 4, 'the receiver got the four events');
  });

  it('getPaymentTimeline shows a resend as a second delivery of the same event', async () => {
    const id = await m.createPayment();
    await d.drain();
    const [created] = (await timeline(id)).filter((e) => e.kind === 'event');
    const first = created!.deliveries![0]!;
    await expectJson(await m.call('POST', `/v1/dashboard/webhook-deliveries/${first.id}/resend`), 202);
    await d.drain();
    const again = (await timeline(id)).filter((e) => e.kind === 'event');
    assert.equal(again.length, 1);
    assert.deepEqual(
      again[0]!.deliveries!.map((x) => [x.trigger, x.eventId]),
      [
        ['event', created!.event!.id],
        ['resend', created!.event!.id],
      ],
    );
  });

  it('getPaymentTimeline of a payment without an endpoint lists events with no deliveries', async () => {
    const n = await d.merchant();
    const id = await n.createPayment();
    const res = await n.call('GET', `/v1/dashboard/payments/${id}/timeline`);
    const { entries } = await expectJson<{ entries: Entry[] }>(res, 200);
    assert.deepEqual(
      entries.map((e) => [e.kind, e.status ?? e.event!.type, e.deliveries?.length]),
      [
        ['transition', 'requires_action', undefined],
        ['event', 'payment.created', 0],
      ],
    );
  });

  it('getPaymentTimeline answers 404 payment_not_found for another mode’s, another merchant’s or an unknown payment', async () => {
    const id = await m.createPayment();
    await expectError(
      await m.call('GET', `/v1/dashboard/payments/${id}/timeline`, { live: true }),
      404,
      'payment_not_found',
    );
    const other = await d.merchant();
    await expectError(await other.call('GET', `/v1/dashboard/payments/${id}/timeline`), 404, 'payment_not_found');
    await expectError(await m.call('GET', '/v1/dashboard/payments/pay_nothing/timeline'), 404, 'payment_not_found');
    const long = await m.call('GET', `/v1/dashboard/payments/${'p'.repeat(129)}/timeline`);
    await expectError(long.clone(), 400, 'params_validation');
    assert.equal(((await long.json()) as { param?: string }).param, 'paymentId');
  });
});
