import assert from 'node:assert/strict';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { createPayment, expectError, expectJson, simulate, startHarness, usd, type Harness } from './harness.js';

const unknown = 'pay_AAAAAAAAAAAAAAAAAAAAAAAA';

describe('merchant.getPayment', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const get = (id: string) => h.call('GET', `/v1/merchant/payment/${id}`);

  it('200: the full snapshot, every stage sub-object present', async () => {
    const { paymentId } = await createPayment(h, {
      amount: { unit: 'iso4217/EUR', value: '4999' },
      referenceId: 'order_7',
    });
    const now = new Date(h.clock.now());
    assert.deepEqual(await expectJson(await get(paymentId), 200), {
      payment_id: paymentId,
      merchant_id: h.account.merchantId,
      live: false,
      payment_state_version: 0,
      reference_id: 'order_7',
      status: 'requires_action',
      amount: { unit: 'iso4217/EUR', value: '4999' },
      created_at: now.toISOString(),
      expires_at: new Date(h.clock.now() + 30 * 60_000).toISOString(),
      processing: null,
      success: null,
      failed: null,
      cancelled: null,
      expired: null,
      settled: null,
      refunded: null,
      // What was sold: none given (issue 35 §1).
      description: null,
      line_items: [],
      buyer: null,
      metadata: {},
      // Not from a payment link (issue 35 §2).
      link_id: null,
    });
  });

  it('shows the precise status (cancelled) and the stages reached', async () => {
    const { paymentId } = await createPayment(h);
    await simulate(h, paymentId, 'cancelled');
    const snapshot = await expectJson<Record<string, unknown>>(await get(paymentId), 200);
    assert.equal(snapshot.status, 'cancelled');
    assert.equal((snapshot.cancelled as Record<string, unknown>).cancelled_by, 'merchant');
  });

  it('404 payment_not_found for an unknown id', async () => {
    await expectError(await get(unknown), 404, 'payment_not_found');
  });

  it('404 payment_not_found for a malformed id too; 400 for one over 128 characters or an unknown query parameter', async () => {
    await expectError(await get('pay_123'), 404, 'payment_not_found');
    await expectError(await get('order_1'), 404, 'payment_not_found');
    await expectError(await get('x'.repeat(129)), 400, 'params_validation');
    const { paymentId } = await createPayment(h);
    await expectError(await h.call('GET', `/v1/merchant/payment/${paymentId}?expand=all`), 400, 'invalid_params');
  });

  it('applies expiry on read: past expiresAt the payment is expired, with its event', async () => {
    const { paymentId, expiresAt } = await createPayment(h, {
      ...usd(),
      expiresAt: Math.floor(h.clock.now() / 1000) + 300,
    });
    h.clock.advance(299_000);
    assert.equal((await expectJson<{ status: string }>(await get(paymentId), 200)).status, 'requires_action');
    h.clock.advance(2_000);
    const snapshot = await expectJson<Record<string, unknown>>(await get(paymentId), 200);
    assert.equal(snapshot.status, 'expired');
    assert.equal(snapshot.payment_state_version, 1);
    assert.deepEqual(snapshot.expired, { expired_at: new Date(expiresAt * 1000).toISOString() });
    const events = await listEventsForPayment(h.runtime.db.knex, paymentId);
    assert.deepEqual(
      events.map((e) => [e.type, e.state_version]),
      [
        ['payment.created', 0],
        ['payment.expired', 1],
      ],
    );
    assert.deepEqual(JSON.parse(events[1]!.payload).data, snapshot);
    // A second read changes nothing.
    assert.deepEqual(await expectJson(await get(paymentId), 200), snapshot);
    assert.equal((await listEventsForPayment(h.runtime.db.knex, paymentId)).length, 2);
  });
});
