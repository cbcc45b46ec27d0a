/**
 * The dashboard's overview: per currency, the volume, count and success rate of the payments created today, in the
 * last 7 and the last 30 UTC days, and a daily series for the chart. Amounts are summed exactly (BigInt), never
 * across currencies.
 */
import type { components } from '../generated/dashboard.js';
import { readDayTotals } from '../db/queries/paymentDayTotals.js';
import { DAY_MS, type DayTotals } from '../db/queries/paymentOverview.js';
import { findOverduePayments } from '../db/queries/payments.js';
import { expireIfOverdue, type LifecycleDeps } from './lifecycle.js';
import type { MerchantScope } from './merchantPayments.js';

export type Overview = components['schemas']['Overview'];
type OverviewWindow = components['schemas']['OverviewWindow'];

const SERIES_DAYS = 30;

/**
 * `succeeded / final` with 4 digits after the point, rounded half up, in integer arithmetic (so `2/3` is `0.6667`
 * on every platform); null when nothing is final.
 */
export function successRate(succeeded: number, final: number): string | null {
  if (final === 0) return null;
  const tenThousandths = (BigInt(succeeded) * 20_000n + BigInt(final)) / (2n * BigInt(final));
  const whole = tenThousandths / 10_000n;
  const fraction = (tenThousandths % 10_000n).toString().padStart(4, '0');
  return `${whole}.${fraction}`;
}

function windowOf(rows: DayTotals[]): OverviewWindow {
  let volume = 0n;
  let count = 0;
  let succeeded = 0;
  let final = 0;
  for (const r of rows) {
    volume += BigInt(r.volume);
    count += r.count;
    succeeded += r.succeeded;
    final += r.final;
  }
  return {
    volume: volume.toString(),
    count,
    succeeded,
    open: count - final,
    successRate: successRate(succeeded, final),
  };
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

export async function getOverview(deps: LifecycleDeps, scope: MerchantScope): Promise<Overview> {
  // As the list does: overdue payments are expired first, so they count as final (a bounded number per call).
  for (const payment of await findOverduePayments(deps.db.knex, deps.now(), 100, scope)) {
    await expireIfOverdue(deps, payment);
  }
  const today = Math.floor(deps.now() / DAY_MS);
  const first = today - (SERIES_DAYS - 1);
  // The rollup kept by the payment writer (docs/decisions.md §24.4): at most 30 rows per currency, whatever the
  // merchant's history.
  const totals = await readDayTotals(deps.db.knex, scope, first, today);
  const units = [...new Set(totals.map((t) => t.amount_unit))].sort();
  const currencies: Overview['currencies'] = [];
  const series: Overview['series'] = [];
  for (const unit of units) {
    const rows = totals.filter((t) => t.amount_unit === unit);
    currencies.push({
      currency: unit,
      today: windowOf(rows.filter((r) => r.day === today)),
      last7Days: windowOf(rows.filter((r) => r.day > today - 7)),
      last30Days: windowOf(rows),
    });
    const byDay = new Map(rows.map((r) => [r.day, r]));
    for (let day = first; day <= today; day++) {
      const r = byDay.get(day);
      series.push({ date: dateOf(day), currency: unit, volume: r?.volume ?? '0', count: r?.count ?? 0 });
    }
  }
  return { mode: scope.live ? 'live' : 'test', currencies, series };
}
