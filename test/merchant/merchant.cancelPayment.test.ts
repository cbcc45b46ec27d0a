import assert from 'node:assert/strict';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { createPayment, expectError, expectJson, simulate, startHarness, usd, type Harness } from './harness.js';

type Snapshot = Record<string, unknown> & { status: string; payment_state_version: number; cancelled: unknown };

describe('merchant.cancelPayment', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const cancel = (id: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) =>
    h.call('POST', `/v1/merchant/payment/${id}/cancel`, options);
  const events = async (id: string) => (await listEventsForPayment(h.runtime.db.knex, id)).map((e) => e.type);

  it('200: cancels a pending payment with the reason, emitting payment.cancelled', async () => {
    const { paymentId } = await createPayment(h);
    const snapshot = await expectJson<Snapshot>(
      await cancel(paymentId, { body: { reason: 'Customer changed their mind' } }),
      200,
    );
    assert.equal(snapshot.status, 'cancelled');
    assert.equal(snapshot.payment_state_version, 1);
    assert.deepEqual(snapshot.cancelled, {
      cancelled_at: new Date(h.clock.now()).toISOString(),
      cancelled_by: 'merchant',
      cancellation_reason: 'Customer changed their mind',
    });
    const list = await listEventsForPayment(h.runtime.db.knex, paymentId);
    assert.deepEqual(
      list.map((e) => e.type),
      ['payment.created', 'payment.cancelled'],
    );
    assert.deepEqual(JSON.parse(list[1]!.payload).data, snapshot);
    assert.deepEqual(await expectJson(await h.call('GET', `/v1/merchant/payment/${paymentId}/status`), 200), {
      status: 'failed',
      isFinal: true,
      pollInMs: null,
    });
  });

  it('the body is optional: none, or {}', async () => {
    for (const options of [{}, { body: {} }]) {
      const { paymentId } = await createPayment(h);
      const snapshot = await expectJson<Snapshot>(await cancel(paymentId, options), 200);
      assert.equal((snapshot.cancelled as { cancellation_reason: unknown }).cancellation_reason, null);
    }
  });

  it('is idempotent: cancelling a cancelled payment answers it unchanged, with no new version or event', async () => {
    const { paymentId } = await createPayment(h);
    const first = await expectJson<Snapshot>(await cancel(paymentId, { body: { reason: 'first' } }), 200);
    h.clock.advance(1_000);
    const again = await expectJson<Snapshot>(await cancel(paymentId, { body: { reason: 'second' } }), 200);
    assert.deepEqual(again, first);
    assert.deepEqual(await events(paymentId), ['payment.created', 'payment.cancelled']);
  });

  it('409 invalid_state once the payment is processing or final', async () => {
    for (const steps of [['processing'], ['processing', 'succeeded'], ['failed'], ['expired']]) {
      const { paymentId } = await createPayment(h);
      await simulate(h, paymentId, ...steps);
      const before = await events(paymentId);
      await expectError(await cancel(paymentId), 409, 'invalid_state');
      assert.deepEqual(await events(paymentId), before);
    }
  });

  it('409 invalid_state after expiresAt: the payment is expired first', async () => {
    const { paymentId } = await createPayment(h, { ...usd(), expiresAt: Math.floor(h.clock.now() / 1000) + 90 });
    h.clock.advance(90_000);
    await expectError(await cancel(paymentId), 409, 'invalid_state');
    assert.deepEqual(await events(paymentId), ['payment.created', 'payment.expired']);
  });

  it('404 payment_not_found for an unknown id or another mode’s payment', async () => {
    await expectError(await cancel('pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'payment_not_found');
    const { paymentId } = await createPayment(h, usd(), { live: true });
    await expectError(await cancel(paymentId), 404, 'payment_not_found');
  });

  it('400 for a reason over 500 characters, an unknown field, an id over 128 characters or an unreadable body', async () => {
    const { paymentId } = await createPayment(h);
    await expectError(await cancel(paymentId, { body: { reason: 'x'.repeat(501) } }), 400, 'params_validation');
    await expectError(await cancel(paymentId, { body: { reasons: 'x' } }), 400, 'params_validation');
    await expectError(await cancel('x'.repeat(129)), 400, 'params_validation');
    // A malformed id is just an unknown one (docs/decisions.md §4).
    await expectError(await cancel('pay_0'), 404, 'payment_not_found');
    await expectError(await cancel(paymentId, { raw: '{' }), 400, 'invalid_params');
    await expectError(await cancel(paymentId, { raw: '[]' }), 400, 'invalid_params');
    await expectJson(await cancel(paymentId, { body: { reason: 'x'.repeat(500) } }), 200);
  });

  it('413 and 415 for a body over the limit or of another type', async () => {
    const { paymentId } = await createPayment(h);
    await expectError(
      await cancel(paymentId, { raw: JSON.stringify({ reason: 'x'.repeat(300 * 1024) }) }),
      413,
      'invalid_params',
    );
    await expectError(
      await cancel(paymentId, { raw: 'reason=x', headers: { 'Content-Type': 'text/plain' } }),
      415,
      'invalid_params',
    );
  });
});
