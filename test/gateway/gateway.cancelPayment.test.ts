import assert from 'node:assert/strict';
import { findPayment } from '../../server/src/db/queries/payments.js';
import {
  expectError,
  expectJson,
  startGatewayHarness,
  unknownPayment,
  type GatewayCall,
  type GatewayHarness,
} from './harness.js';

/** Paygate's status fields and WalletConnect Pay's cancel fields, in one answer (docs/decisions.md §28). */
const cancelled = (paymentId: string, at: number, by = 'cancelled_by_user') => ({
  status: 'cancelled',
  isFinal: true,
  pollInMs: null,
  info: null,
  failureCode: null,
  paymentId,
  cancelledReason: by,
  cancelledAt: new Date(at).toISOString(),
});

describe('gateway.cancelPayment', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGatewayHarness();
  });
  after(() => h.close());

  const cancel = (id: string, o: GatewayCall = {}) => h.call('POST', `/v1/gateway/payment/${id}/cancel`, o);
  const events = async (id: string) =>
    (await h.runtime.db.knex('events').where({ payment_id: id }).orderBy('state_version')).map(
      (e: { type: string }) => e.type,
    );

  it('200: the buyer cancels a payment in requires_action; the merchant learns it was the buyer', async () => {
    const id = await h.createPayment();
    assert.deepEqual(await expectJson(await cancel(id), 200), cancelled(id, h.clock.now()));
    const payment = (await findPayment(h.runtime.db.knex, id))!;
    assert.equal(payment.state_version, 1);
    assert.deepEqual(payment.stages.cancelled, {
      cancelled_at: new Date(h.clock.now()).toISOString(),
      cancelled_by: 'buyer',
      cancellation_reason: null,
    });
    assert.deepEqual(await events(id), ['payment.created', 'payment.cancelled']);
  });

  it('200 with the empty object as body, and with an app id', async () => {
    const id = await h.createPayment();
    const app = { 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': 'install-1' };
    assert.deepEqual(await expectJson(await cancel(id, { body: {}, headers: app }), 200), cancelled(id, h.clock.now()));
  });

  it('200 again on a cancelled payment (idempotent: no new version, no new event), whoever cancelled it', async () => {
    const id = await h.createPayment();
    const first = h.clock.now();
    await expectJson(await cancel(id), 200);
    h.clock.advance(1_000);
    assert.deepEqual(await expectJson(await cancel(id), 200), cancelled(id, first));
    assert.deepEqual(await events(id), ['payment.created', 'payment.cancelled']);
    const byMerchant = await h.createPayment();
    await h.simulate(byMerchant, 'cancelled');
    const byMerchantAt = h.clock.now();
    h.clock.advance(1_000);
    assert.deepEqual(
      await expectJson(await cancel(byMerchant), 200),
      cancelled(byMerchant, byMerchantAt, 'cancelled_by_merchant'),
    );
  });

  it('409 invalid_state once the payment is processing, succeeded, failed or expired', async () => {
    for (const steps of [['processing'], ['processing', 'succeeded'], ['failed'], ['expired']]) {
      const id = await h.createPayment();
      await h.simulate(id, ...steps);
      const before = await events(id);
      await expectError(await cancel(id), 409, 'invalid_state');
      assert.deepEqual(await events(id), before);
    }
  });

  it('409 invalid_state after expiresAt: the payment is expired first, not cancelled', async () => {
    const id = await h.createPayment({ expiresInSeconds: 90 });
    h.clock.advance(90_000);
    await expectError(await cancel(id), 409, 'invalid_state');
    assert.deepEqual(await events(id), ['payment.created', 'payment.expired']);
  });

  it('400 params_validation for a body with a field, or a payment id over 128 characters', async () => {
    const id = await h.createPayment();
    await expectError(await cancel(id, { body: { reason: 'changed my mind' } }), 400, 'params_validation');
    await expectError(await cancel('x'.repeat(129)), 400, 'params_validation');
    assert.equal((await findPayment(h.runtime.db.knex, id))!.status, 'requires_action');
  });

  it('400 invalid_params for malformed JSON, a body that is not an object, or an unknown query parameter', async () => {
    const id = await h.createPayment();
    await expectError(await cancel(id, { raw: '{' }), 400, 'invalid_params');
    await expectError(await cancel(id, { raw: '[]' }), 400, 'invalid_params');
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${id}/cancel?force=true`, { body: {} }),
      400,
      'invalid_params',
    );
  });

  it('403 forbidden for a payment of the other mode, which stays as it was', async () => {
    const live = await h.createPayment({ live: true });
    await expectError(await cancel(live), 403, 'forbidden');
    assert.equal((await findPayment(h.runtime.db.knex, live))!.status, 'requires_action');
  });

  it('404 payment_not_found for an unknown id, malformed or not', async () => {
    await expectError(await cancel(unknownPayment), 404, 'payment_not_found');
    await expectError(await cancel('pay_x'), 404, 'payment_not_found');
  });

  it('413 invalid_params for a body over 256 KiB', async () => {
    const id = await h.createPayment();
    const big = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
    await expectError(await cancel(id, { raw: big }), 413, 'invalid_params');
  });

  it('415 invalid_params for a body that is not application/json', async () => {
    const id = await h.createPayment();
    const res = await cancel(id, { raw: '{}', headers: { 'Content-Type': 'text/plain' } });
    await expectError(res, 415, 'invalid_params');
  });

  it('500 internal_error with a generic message when storage fails, and nothing changes', async () => {
    const id = await h.createPayment();
    await h.runtime.db.knex.schema.renameTable('events', 'events_unavailable');
    try {
      assert.equal(await expectError(await cancel(id), 500, 'internal_error'), 'An internal error occurred.');
    } finally {
      await h.runtime.db.knex.schema.renameTable('events_unavailable', 'events');
    }
    assert.equal((await findPayment(h.runtime.db.knex, id))!.status, 'requires_action');
  });
});
