import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

/**
 * Two parts of issue 36 (docs/decisions.md §24.4, §24.5).
 *
 * The overview's rollup: per merchant, mode, UTC day of creation and currency, the number of payments, how many
 * succeeded, how many are final, and the exact sum of the succeeded ones. The payment writer keeps it in the
 * payment's own transaction (db/queries/paymentDayTotals.ts); this migration fills it from the payments already
 * there. `volume` is exact: NUMERIC on PostgreSQL; on SQLite a 64-bit INTEGER whose CHECK refuses the REAL that
 * SQLite's `+` silently turns an overflowing sum into, so an overflow is an error and never a rounded total. The
 * backfill reads every payment once, under a SHARE lock on PostgreSQL: writers of the old code still running wait
 * for it instead of committing a payment the backfill's snapshot cannot see (which would make the rollup differ from
 * the payments for ever). Reads go on; writes wait for the backfill (about a second per million payments).
 *
 * Three indexes for list filters that the list indexes can only apply row by row, walking a merchant's history to
 * fill a page: the delivery log by event and by event type, and the payments list's `settled=false`. Built as 016
 * builds its own (`CREATE INDEX CONCURRENTLY`, so `config = { transaction: false }`; the rollup part runs in its own
 * transaction).
 */
export const config = { transaction: false };

const indexes: { name: string; table: string; columns: string[]; where?: string }[] = [
  // GET /v1/webhooks/deliveries?eventId=…: an event has one delivery per endpoint and its resends.
  { name: 'webhook_deliveries_event_idx', table: 'webhook_deliveries', columns: ['event_id'] },
  // ?eventType=…: a rare type (payment.failed) among millions of others.
  {
    name: 'webhook_deliveries_type_list_idx',
    table: 'webhook_deliveries',
    columns: ['merchant_id', 'live', 'event_type', 'created_at', 'id'],
  },
  // ?settled=false: succeeded payments not settled yet, a few among a history of settled ones; partial, so small.
  {
    name: 'payments_unsettled_idx',
    table: 'payments',
    columns: ['merchant_id', 'live', 'created_at', 'id'],
    where: "status = 'succeeded' and settled is null",
  },
];

async function createRollup(knex: Knex.Transaction, postgres: boolean): Promise<void> {
  await knex.raw(`create table if not exists payment_day_totals (
    merchant_id text not null,
    live boolean not null,
    day integer not null,
    amount_unit text not null,
    count bigint not null,
    succeeded bigint not null,
    final_count bigint not null,
    volume ${postgres ? 'numeric not null' : "integer not null check (typeof(volume) = 'integer')"},
    primary key (merchant_id, live, day, amount_unit)
  )`);
  if (postgres) await knex.raw('lock table payments in share mode');
  await knex('payment_day_totals').delete();
  const exact = postgres ? 'numeric' : 'integer';
  await knex.raw(`insert into payment_day_totals
      (merchant_id, live, day, amount_unit, count, succeeded, final_count, volume)
    select merchant_id, live, created_at / 86400000, amount_unit, count(*),
      sum(case when status = 'succeeded' then 1 else 0 end),
      sum(case when status in ('succeeded', 'failed', 'expired', 'cancelled') then 1 else 0 end),
      sum(case when status = 'succeeded' then cast(amount_value as ${exact}) else 0 end)
    from payments group by merchant_id, live, created_at / 86400000, amount_unit`);
}

export async function up(knex: Knex): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  await knex.transaction((trx) => createRollup(trx, postgres));
  for (const { name, table, columns, where } of indexes) {
    const list = `(${columns.map(() => '??').join(', ')})${where ? ` where ${where}` : ''}`;
    if (postgres) {
      const invalid = (await knex.raw(
        `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE c.relname = ? AND NOT i.indisvalid AND pg_catalog.pg_table_is_visible(c.oid)`,
        [name],
      )) as { rows: unknown[] };
      if (invalid.rows.length > 0) await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS ??', [name]);
      await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ?? ON ?? ${list}`, [name, table, ...columns]);
    } else {
      await knex.raw(`CREATE INDEX IF NOT EXISTS ?? ON ?? ${list}`, [name, table, ...columns]);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  for (const { name } of indexes) {
    await knex.raw(postgres ? 'DROP INDEX CONCURRENTLY IF EXISTS ??' : 'DROP INDEX IF EXISTS ??', [name]);
  }
  await knex.schema.dropTableIfExists('payment_day_totals');
}
