import type { Knex } from 'knex';
import type { components } from '../../generated/gateway.js';
import { dialectOf } from '../dialect.js';
import { DAY_MS, type DayTotals } from './paymentOverview.js';

type PaymentStatus = components['schemas']['PaymentStatus'];

/** What of a payment its overview rollup row depends on. */
export interface RollupFields {
  merchant_id: string;
  live: boolean;
  created_at: number;
  amount_unit: string;
  amount_value: string;
  status: PaymentStatus;
}

export const FINAL_STATUSES: ReadonlySet<PaymentStatus> = new Set(['succeeded', 'failed', 'expired', 'cancelled']);

/**
 * The rollup (`payment_day_totals`, migration 018, docs/decisions.md §24.4) is kept by the payment writer in the
 * payment's own transaction: a create adds its payment (`insertPayments`, and the create batches of creates.ts in
 * their own statements), a status change takes the payment out under its old status and adds it under its new one
 * (`updatePaymentAtVersion`). The SQL of the PostgreSQL create statement and of the migration's backfill count
 * exactly as this does.
 */
interface Delta {
  merchant_id: string;
  live: boolean;
  day: number;
  amount_unit: string;
  count: number;
  succeeded: number;
  final_count: number;
  volume: bigint;
}

function deltaOf(p: RollupFields, sign: 1 | -1, counted: boolean): Delta {
  const succeeded = p.status === 'succeeded';
  return {
    merchant_id: p.merchant_id,
    live: p.live,
    day: Math.floor(p.created_at / DAY_MS),
    amount_unit: p.amount_unit,
    count: counted ? sign : 0,
    succeeded: succeeded ? sign : 0,
    final_count: FINAL_STATUSES.has(p.status) ? sign : 0,
    volume: succeeded ? BigInt(sign) * BigInt(p.amount_value) : 0n,
  };
}

const keyOf = (d: Delta) => [d.merchant_id, d.live ? '1' : '0', String(d.day).padStart(12, '0'), d.amount_unit];

/** Adds the deltas, summed per row of the rollup, in key order (so two transactions lock shared rows in one order). */
async function addDeltas(db: Knex | Knex.Transaction, deltas: Delta[]): Promise<void> {
  const rows = new Map<string, Delta>();
  for (const d of deltas) {
    const key = keyOf(d).join('\u0000');
    const sum = rows.get(key);
    if (!sum) rows.set(key, { ...d });
    else {
      sum.count += d.count;
      sum.succeeded += d.succeeded;
      sum.final_count += d.final_count;
      sum.volume += d.volume;
    }
  }
  const sorted = [...rows.entries()]
    .filter(([, d]) => d.count !== 0 || d.succeeded !== 0 || d.final_count !== 0 || d.volume !== 0n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => d);
  if (sorted.length === 0) return;
  const exact = dialectOf(db) === 'postgres' ? 'numeric' : 'integer';
  await db('payment_day_totals')
    .insert(sorted.map((d) => ({ ...d, volume: db.raw(`cast(? as ${exact})`, [d.volume.toString()]) })))
    .onConflict(['merchant_id', 'live', 'day', 'amount_unit'])
    .merge({
      count: db.raw('payment_day_totals.count + excluded.count'),
      succeeded: db.raw('payment_day_totals.succeeded + excluded.succeeded'),
      final_count: db.raw('payment_day_totals.final_count + excluded.final_count'),
      volume: db.raw('payment_day_totals.volume + excluded.volume'),
    });
}

/** New payments, counted under their status. */
export function addCreatedToDayTotals(db: Knex | Knex.Transaction, rows: RollupFields[]): Promise<void> {
  return addDeltas(
    db,
    rows.map((r) => deltaOf(r, 1, true)),
  );
}

/** A payment moved from `from` to `to.status`: out of its old status's columns, into its new one's. */
export function moveInDayTotals(db: Knex | Knex.Transaction, to: RollupFields, from: PaymentStatus): Promise<void> {
  if (from === to.status) return Promise.resolve();
  return addDeltas(db, [deltaOf({ ...to, status: from }, -1, false), deltaOf(to, 1, false)]);
}

/** The rollup rows of a merchant's mode for UTC days [fromDay, toDay], read through the table's primary key. */
export async function readDayTotals(
  db: Knex,
  scope: { merchantId: string; live: boolean },
  fromDay: number,
  toDay: number,
): Promise<DayTotals[]> {
  const rows = (await db('payment_day_totals')
    .select('amount_unit', 'day', 'count', 'succeeded', 'final_count', db.raw('cast(volume as text) as volume'))
    .where({ merchant_id: scope.merchantId, live: scope.live })
    .andWhere('day', '>=', fromDay)
    .andWhere('day', '<=', toDay)) as Record<string, unknown>[];
  return rows
    .map((r) => ({
      amount_unit: String(r.amount_unit),
      day: Number(r.day),
      count: Number(r.count),
      succeeded: Number(r.succeeded),
      final: Number(r.final_count),
      volume: BigInt(String(r.volume).replace(/\.0*$/, '')).toString(),
    }))
    .filter((r) => r.count !== 0);
}
