import assert from 'node:assert/strict';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { transitionPayment } from '../../server/src/payments/lifecycle.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, expectError, expectJson, simulate, startHarness, usd, type Harness } from './harness.js';

type Snapshot = Record<string, unknown> & { status: string; payment_state_version: number; refunded: unknown };

describe('merchant.refundPayment', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const refund = (
    id: string,
    options: { body?: unknown; raw?: string; headers?: Record<string, string>; live?: boolean } = {},
  ) => h.call('POST', `/v1/merchant/payment/${id}/refund`, options);
  const succeededTestPayment = async () => {
    const { paymentId } = await createPayment(h);
    await simulate(h, paymentId, 'processing', 'succeeded');
    return paymentId;
  };

  it('200: records the refund on a succeeded payment; status stays succeeded, no event, no new version', async () => {
    const paymentId = await succeededTestPayment();
    const before = await expectJson<Snapshot>(await h.call('GET', `/v1/merchant/payment/${paymentId}`), 200);
    const eventsBefore = await listEventsForPayment(h.runtime.db.knex, paymentId);
    h.clock.advance(60_000);
    const snapshot = await expectJson<Snapshot>(await refund(paymentId, { body: { reason: 'Goods returned' } }), 200);
    assert.deepEqual(snapshot.refunded, {
      refunded_at: new Date(h.clock.now()).toISOString(),
      reason: 'Goods returned',
    });
    assert.equal(snapshot.status, 'succeeded');
    // docs/decisions.md §1.2: a refund is a record, not a state change, so receivers see no gap in versions.
    assert.equal(snapshot.payment_state_version, before.payment_state_version);
    assert.deepEqual({ ...snapshot, refunded: null }, before);
    assert.equal((await listEventsForPayment(h.runtime.db.knex, paymentId)).length, eventsBefore.length);
    assert.deepEqual(await expectJson(await h.call('GET', `/v1/merchant/payment/${paymentId}`), 200), snapshot);
  });

  it('the next event of the payment carries the refund', async () => {
    const paymentId = await succeededTestPayment();
    await expectJson(await refund(paymentId), 200);
    await h.runtime.jobs.drain();
    const settled = (await listEventsForPayment(h.runtime.db.knex, paymentId)).at(-1)!;
    assert.equal(settled.type, 'payment.settled');
    assert.deepEqual(JSON.parse(settled.payload).data.refunded, {
      refunded_at: new Date(h.clock.now()).toISOString(),
      reason: null,
    });
  });

  it('allowed on a settled payment, and on a live payment with a live key', async () => {
    const settled = await succeededTestPayment();
    await simulate(h, settled, 'settled');
    await expectJson(await refund(settled, { body: {} }), 200);

    const { paymentId: live } = await createPayment(h, usd(), { live: true });
    await transitionPayment(h.runtime, live, { to: 'processing', stages: {} });
    await transitionPayment(h.runtime, live, { to: 'succeeded', stages: {} });
    const snapshot = await expectJson<Snapshot>(
      await refund(live, { live: true, body: { reason: 'Refunded by bank transfer' } }),
      200,
    );
    assert.equal(snapshot.live, true);
    assert.notEqual(snapshot.refunded, null);
  });

  it('409 already_refunded for a second refund', async () => {
    const paymentId = await succeededTestPayment();
    const first = await expectJson<Snapshot>(await refund(paymentId, { body: { reason: 'first' } }), 200);
    await expectError(await refund(paymentId, { body: { reason: 'second' } }), 409, 'already_refunded');
    assert.deepEqual(await expectJson(await h.call('GET', `/v1/merchant/payment/${paymentId}`), 200), first);
  });

  it('409 payment_not_succeeded for a payment that did not succeed', async () => {
    for (const steps of [[], ['processing'], ['failed'], ['cancelled'], ['expired']]) {
      const { paymentId } = await createPayment(h);
      await simulate(h, paymentId, ...steps);
      await expectError(await refund(paymentId), 409, 'payment_not_succeeded');
    }
  });

  it('404 payment_not_found for an unknown id or another mode’s payment', async () => {
    await expectError(await refund('pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'payment_not_found');
    const paymentId = await succeededTestPayment();
    await expectError(await refund(paymentId, { live: true }), 404, 'payment_not_found');
  });

  it('400 for a reason over 500 characters, an unknown field, an id over 128 characters or an unreadable body', async () => {
    const paymentId = await succeededTestPayment();
    await expectError(await refund(paymentId, { body: { reason: 'x'.repeat(501) } }), 400, 'params_validation');
    await expectError(await refund(paymentId, { body: { amount: '100' } }), 400, 'params_validation');
    await expectError(await refund('x'.repeat(129)), 400, 'params_validation');
    // A malformed id is just an unknown one (docs/decisions.md §4).
    await expectError(await refund('pay_0'), 404, 'payment_not_found');
    await expectError(await refund(paymentId, { raw: '{"reason"' }), 400, 'invalid_params');
    await expectError(await refund(paymentId, { raw: '[]' }), 400, 'invalid_params');
  });

  it('413 and 415 for a body over the limit or of another type', async () => {
    const paymentId = await succeededTestPayment();
    await expectError(
      await refund(paymentId, { raw: JSON.stringify({ reason: 'x'.repeat(300 * 1024) }) }),
      413,
      'invalid_params',
    );
    await expectError(
      await refund(paymentId, { raw: 'reason=x', headers: { 'Content-Type': 'text/plain' } }),
      415,
      'invalid_params',
    );
  });
});

describeEachDatabase('merchant.refundPayment concurrency', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  it('parallel refunds of one payment record it once: one 200, the others 409 already_refunded', async () => {
    const { paymentId } = await createPayment(h);
    await simulate(h, paymentId, 'processing', 'succeeded');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.call('POST', `/v1/merchant/payment/${paymentId}/refund`, { body: { reason: `r${i}` } }),
      ),
    );
    const bodies = await Promise.all(
      responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } })),
    );
    assert.equal(bodies.filter((b) => b.status === 200).length, 1);
    assert.ok(
      bodies.filter((b) => b.status !== 200).every((b) => b.status === 409 && b.body.code === 'already_refunded'),
    );
  });
});
