import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

/**
 * Indexes for the reads that grow with a merchant's history (docs/decisions.md §24, issue 36). Each names its read;
 * test/db/db.queryPlans.indexScan.test.ts proves on PostgreSQL that the read uses it.
 *
 * Safe on a live PostgreSQL: `CREATE INDEX CONCURRENTLY` takes no lock that blocks writes, but PostgreSQL refuses it
 * inside a transaction, so this migration exports `config = { transaction: false }`. Knex then runs the whole batch
 * without one shared transaction: every other pending migration in the batch gets its own, this one runs on a plain
 * pool connection (knex Migrator `_useTransaction`). A concurrent build that fails (a cancelled statement, a crash)
 * leaves an INVALID index behind that `IF NOT EXISTS` would keep forever, so an invalid one is dropped and rebuilt.
 */
export const config = { transaction: false };

const indexes: { name: string; table: string; columns: string[] }[] = [
  // GET /v1/payments?referenceId=…: the merchant's reference, newest first.
  {
    name: 'payments_reference_idx',
    table: 'payments',
    columns: ['merchant_id', 'live', 'reference_id', 'created_at', 'id'],
  },
  // GET /v1/payments?status=…: each status is a small part of a large merchant's payments.
  {
    name: 'payments_status_list_idx',
    table: 'payments',
    columns: ['merchant_id', 'live', 'status', 'created_at', 'id'],
  },
  // The payment timeline and the delivery log filtered by payment.
  {
    name: 'webhook_deliveries_payment_idx',
    table: 'webhook_deliveries',
    columns: ['merchant_id', 'live', 'payment_id', 'created_at', 'id'],
  },
  // The delivery log filtered by status (failed deliveries among millions of delivered ones).
  {
    name: 'webhook_deliveries_status_list_idx',
    table: 'webhook_deliveries',
    columns: ['merchant_id', 'live', 'status', 'created_at', 'id'],
  },
  // The ledger export's keyset page (ledgerEntries.ts, ledgerPage): merchant and mode, by id.
  { name: 'ledger_entries_page_idx', table: 'ledger_entries', columns: ['merchant_id', 'live', 'id'] },
  // The payouts list's keyset on (created_at, id); the older index has no id to break ties.
  { name: 'payouts_list_idx', table: 'payouts', columns: ['merchant_id', 'live', 'created_at', 'id'] },
  // The webhook retention job: attempts older than the window, in small batches (webhooks/retention.ts).
  { name: 'webhook_attempts_started_idx', table: 'webhook_attempts', columns: ['started_at', 'id'] },
];

export async function up(knex: Knex): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  for (const { name, table, columns } of indexes) {
    if (postgres) {
      const invalid = (await knex.raw(
        `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE c.relname = ? AND NOT i.indisvalid AND pg_catalog.pg_table_is_visible(c.oid)`,
        [name],
      )) as { rows: unknown[] };
      if (invalid.rows.length > 0) await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS ??', [name]);
      await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ?? ON ?? (${columns.map(() => '??').join(', ')})`, [
        name,
        table,
        ...columns,
      ]);
    } else {
      await knex.raw(`CREATE INDEX IF NOT EXISTS ?? ON ?? (${columns.map(() => '??').join(', ')})`, [
        name,
        table,
        ...columns,
      ]);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  for (const { name } of indexes) {
    await knex.raw(postgres ? 'DROP INDEX CONCURRENTLY IF EXISTS ??' : 'DROP INDEX IF EXISTS ??', [name]);
  }
}
