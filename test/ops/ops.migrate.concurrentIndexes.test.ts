/**
 * Migration 016 on a live PostgreSQL (docs/decisions.md §24.1): it runs outside a transaction (PostgreSQL refuses
 * CREATE INDEX CONCURRENTLY inside one), and run again after a build left an index INVALID it rebuilds it, where
 * `IF NOT EXISTS` alone would keep the broken index for ever. Migrations 021 and 022 add partial indexes to
 * `payments` the same way (db/concurrentIndex.ts), and are safe to run again after a failure halfway.
 */
import assert from 'node:assert/strict';
import { migrateDatabase } from '@paygate/server';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const validity = async (test: TestDatabase, name: string) =>
  (
    (await test.db.knex.raw(
      'SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ?',
      [name],
    )) as { rows: { valid: boolean }[] }
  ).rows.map((r) => r.valid);

describe('ops.migrate concurrent indexes [postgres]', () => {
  let test: TestDatabase;
  before(async () => {
    test = await createTestDatabase('postgres');
  });
  after(() => test?.drop());

  it('migration 016 run again after an interrupted build rebuilds the INVALID index and leaves it valid', async () => {
    assert.deepEqual(await validity(test, 'payments_reference_idx'), [true]);
    // What an interrupted CREATE INDEX CONCURRENTLY leaves behind: the index exists, marked invalid.
    await test.db.knex.raw(
      "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'payments_reference_idx'::regclass",
    );
    await test.db.knex('paygate_migrations').where({ name: '016_scale_indexes' }).delete();
    await test.db.knex('paygate_migrations').where({ name: '017_attempts_pruned' }).delete();
    await test.db.knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('attempts_pruned_at'));
    assert.deepEqual(await validity(test, 'payments_reference_idx'), [false]);

    // 016 and 017 in one batch: 017 in its own transaction, 016 without one (it would fail inside one).
    assert.deepEqual(await migrateDatabase(test.db), ['016_scale_indexes', '017_attempts_pruned']);
    assert.deepEqual(await validity(test, 'payments_reference_idx'), [true]);
    assert.deepEqual(await validity(test, 'webhook_deliveries_payment_idx'), [true]);
  });

  it('migrations 021 and 022 run again after an interrupted build rebuild their INVALID indexes on payments, without a transaction', async () => {
    for (const name of ['payments_link_idx', 'payments_invoice_idx']) {
      assert.deepEqual(await validity(test, name), [true]);
      await test.db.knex.raw(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${name}'::regclass`);
    }
    const later = ['021_payment_links', '022_invoices', '023_pos_terminals'];
    await test.db.knex('paygate_migrations').whereIn('name', later).delete();
    await test.db.knex.schema.dropTable('pos_payments');
    await test.db.knex.schema.dropTable('pos_terminals');
    // 021 and 022 find their tables and columns already there (a failure after them), and build the indexes again.
    assert.deepEqual(await migrateDatabase(test.db), later);
    assert.deepEqual(await validity(test, 'payments_link_idx'), [true]);
    assert.deepEqual(await validity(test, 'payments_invoice_idx'), [true]);
  });
});
