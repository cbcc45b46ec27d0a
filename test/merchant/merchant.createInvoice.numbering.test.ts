/**
 * Invoice numbers (docs/decisions.md §30.9): taken from the merchant's sequence in the transaction that inserts the
 * invoice, so concurrent creates get distinct numbers without gaps, a failed create gives its number back, and a
 * number once given is never given again. On both databases: the locking differs.
 */
import assert from 'node:assert/strict';
import { takeNextNumber } from '../../server/src/db/queries/invoiceRows.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startHarness, type Harness } from './harness.js';
import { createInvoice } from './invoiceHarness.js';

describeEachDatabase('merchant.createInvoice numbering', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  it('numbers invoices INV-0001, INV-0002, … per mode, and 40 concurrent creates take 40 consecutive numbers', async () => {
    assert.equal((await createInvoice(h)).number, 'INV-0001');
    assert.equal((await createInvoice(h)).number, 'INV-0002');
    // The live mode has its own sequence: test invoices never use up live numbers.
    assert.equal((await createInvoice(h, {}, { live: true })).number, 'INV-0001');
    const made = await Promise.all(Array.from({ length: 40 }, () => createInvoice(h)));
    const numbers = made.map((i) => Number(i.number.slice('INV-'.length))).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 40 }, (_, i) => i + 3),
    );
    const sequence = await expectJson(await h.call('GET', '/v1/merchant/invoice-sequence'), 200);
    assert.deepEqual(sequence, { prefix: 'INV-', nextNumber: 43 });
  });

  it('a create whose transaction fails gives its number back: the next invoice takes it', async () => {
    const { number: before } = await createInvoice(h);
    const n = Number(before.slice('INV-'.length));
    await assert.rejects(
      get().db.knex.transaction(async (trx) => {
        const taken = await takeNextNumber(trx, h.account.merchantId, false);
        assert.equal(taken.number, n + 1);
        throw new Error('the insert failed');
      }),
      /the insert failed/,
    );
    assert.equal((await createInvoice(h)).number, `INV-${String(n + 1).padStart(4, '0')}`);
  });

  it('updateInvoiceSequence changes the prefix and moves the next number forward, never back', async () => {
    const current = await expectJson<{ nextNumber: number }>(await h.call('GET', '/v1/merchant/invoice-sequence'), 200);
    await expectError(
      await h.call('POST', '/v1/merchant/invoice-sequence', { body: { nextNumber: current.nextNumber - 1 } }),
      400,
      'params_validation',
    );
    await expectError(
      await h.call('POST', '/v1/merchant/invoice-sequence', { body: { prefix: 'bad prefix' } }),
      400,
      'params_validation',
    );
    const updated = await expectJson(
      await h.call('POST', '/v1/merchant/invoice-sequence', { body: { prefix: '2026/', nextNumber: 1000 } }),
      200,
    );
    assert.deepEqual(updated, { prefix: '2026/', nextNumber: 1000 });
    assert.equal((await createInvoice(h)).number, '2026/1000');
    assert.equal((await createInvoice(h)).number, '2026/1001');
    // The live sequence is untouched.
    assert.equal((await createInvoice(h, {}, { live: true })).number, 'INV-0002');
  });
});
