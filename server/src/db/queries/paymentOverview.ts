import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

export const DAY_MS = 86_400_000;

/** One currency's payments created on one UTC day. */
export interface DayTotals {
  amount_unit: string;
  /** Days since the epoch (UTC): `floor(created_at / 86 400 000)`. */
  day: number;
  count: number;
  succeeded: number;
  /** Payments in a final status (succeeded, failed, expired, cancelled). */
  final: number;
  /** The exact sum of the succeeded payments' `amount_value`, as a decimal string. */
  volume: string;
}

/**
 * A merchant's payments of one mode created in [fromMs, toMs), totalled per currency and UTC day in one grouped
 * query over the payments themselves: the definition the overview's rollup (paymentDayTotals.ts, which the overview
 * reads) must equal, and what test/dashboard/dashboard.getOverview.rollup.test.ts compares it with. The day is an integer division of `created_at` (a bigint of milliseconds on both databases, so `/` truncates,
 * and created_at is never negative). `amount_value` is a string column: it is summed as an exact type, NUMERIC on
 * PostgreSQL and INTEGER (64-bit; each value has at most 15 digits, so a day would need ~9 000 maximal payments of one
 * currency to overflow, which SQLite reports as an error rather than rounding) on SQLite, and read back as text, so
 * a sum beyond 2^53 reaches JavaScript without rounding.
 */
export async function paymentDayTotals(
  db: Knex,
  scope: { merchantId: string; live: boolean },
  fromMs: number,
  toMs: number,
): Promise<DayTotals[]> {
  const exact = dialectOf(db) === 'postgres' ? 'numeric' : 'integer';
  const rows = (await db('payments')
    .select(
      'amount_unit',
      db.raw(`created_at / ${DAY_MS} as day`),
      db.raw('count(*) as count'),
      db.raw(`sum(case when status = 'succeeded' then 1 else 0 end) as succeeded`),
      db.raw(
        `sum(case when status in ('succeeded', 'failed', 'expired', 'cancelled') then 1 else 0 end) as final_count`,
      ),
      db.raw(
        `cast(sum(case when status = 'succeeded' then cast(amount_value as ${exact}) else 0 end) as text) as volume`,
      ),
    )
    .where({ merchant_id: scope.merchantId, live: scope.live })
    .andWhere('created_at', '>=', fromMs)
    .andWhere('created_at', '<', toMs)
    .groupBy('amount_unit', db.raw(`created_at / ${DAY_MS}`))) as Record<string, unknown>[];
  return rows.map((r) => ({
    amount_unit: String(r.amount_unit),
    day: Number(r.day),
    count: Number(r.count),
    succeeded: Number(r.succeeded),
    final: Number(r.final_count),
    // PostgreSQL prints a NUMERIC sum of integers without a fraction; normalise any form to an integer string.
    volume: BigInt(String(r.volume ?? '0').replace(/\.0*$/, '')).toString(),
  }));
}
