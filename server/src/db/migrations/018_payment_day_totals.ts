import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

/**
 * The overview's rollup (docs/decisions.md §24.4): per merchant, mode, UTC day of creation and currency, the number
 * of payments, how many succeeded, how many are final, and the exact sum of the succeeded ones. The payment writer
 * keeps it in the payment's own transaction (db/queries/paymentDayTotals.ts); this migration fills it from the
 * payments already there.
 *
 * `volume` is exact: NUMERIC on PostgreSQL; on SQLite a 64-bit INTEGER whose CHECK refuses the REAL that SQLite's
 * `+` silently turns an overflowing sum into, so an overflow is an error and never a rounded total.
 *
 * The backfill reads every payment once, under a SHARE lock on PostgreSQL: writers of the old code still running
 * wait for it instead of committing a payment the backfill's snapshot cannot see (which would make the rollup
 * differ from the payments for ever). Reads go on; writes wait about a second per million payments.
 */
export async function up(knex: Knex): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  await knex.raw(`create table payment_day_totals (
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
  const exact = postgres ? 'numeric' : 'integer';
  await knex.raw(`insert into payment_day_totals
      (merchant_id, live, day, amount_unit, count, succeeded, final_count, volume)
    select merchant_id, live, created_at / 86400000, amount_unit, count(*),
      sum(case when status = 'succeeded' then 1 else 0 end),
      sum(case when status in ('succeeded', 'failed', 'expired', 'cancelled') then 1 else 0 end),
      sum(case when status = 'succeeded' then cast(amount_value as ${exact}) else 0 end)
    from payments group by merchant_id, live, created_at / 86400000, amount_unit`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payment_day_totals');
}
