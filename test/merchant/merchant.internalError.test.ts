import assert from 'node:assert/strict';
import { findIdempotencyKey } from '../../server/src/db/queries/idempotencyKeys.js';
import { createPayment, expectError, operations, startHarness, usd, type Harness } from './harness.js';

/** Every operation answers an unexpected failure with 500 internal_error and a generic message, nothing more. */
describe('merchant.internalError', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('a failure while creating leaves neither a payment nor an idempotency record', async () => {
    const before = (await h.runtime.db.knex('payments').count({ n: '*' }))[0]!.n;
    // The event insert fails after the payment insert, inside the same transaction.
    await h.runtime.db.knex.schema.renameTable('events', 'events_unavailable');
    try {
      const res = await h.call('POST', '/v1/merchant/payment', {
        body: usd(),
        headers: { 'Idempotency-Key': 'k-500' },
      });
      const message = await expectError(res, 500, 'internal_error');
      assert.equal(message, 'An internal error occurred.');
    } finally {
      await h.runtime.db.knex.schema.renameTable('events_unavailable', 'events');
    }
    assert.equal((await h.runtime.db.knex('payments').count({ n: '*' }))[0]!.n, before);
    const scope = { merchant_id: h.account.merchantId, live: false, key: 'k-500' };
    assert.equal(await findIdempotencyKey(h.runtime.db.knex, scope), null);
    // The same key works once the failure is gone.
    await createPayment(h, usd(), { headers: { 'Idempotency-Key': 'k-500' } });
  });

  it('every operation answers 500 internal_error when storage fails', async () => {
    const { paymentId } = await createPayment(h);
    await h.runtime.db.knex.schema.renameTable('payments', 'payments_unavailable');
    // The fee balance reads the ledger's totals, not the payments.
    await h.runtime.db.knex.schema.renameTable('ledger_entries', 'ledger_entries_unavailable');
    await h.runtime.db.knex.schema.renameTable('ledger_totals', 'ledger_totals_unavailable');
    try {
      for (const op of operations) {
        const message = await expectError(
          await h.call(op.method, op.path(paymentId), { body: op.body }),
          500,
          'internal_error',
        );
        assert.doesNotMatch(message, /payments|ledger|SQLITE|no such table/i, op.name);
      }
    } finally {
      await h.runtime.db.knex.schema.renameTable('payments_unavailable', 'payments');
      await h.runtime.db.knex.schema.renameTable('ledger_entries_unavailable', 'ledger_entries');
      await h.runtime.db.knex.schema.renameTable('ledger_totals_unavailable', 'ledger_totals');
    }
  });
});
