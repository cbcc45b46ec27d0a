/**
 * Checks after each size of the scale benchmark's fill (docs/decisions.md §24.13), so a figure is never published
 * over rows the app would not have written: the overview's rollup and the ledger totals, rebuilt after the fill,
 * equal a scan of the rows; and a payment of each status reads back through the app's own query, its latest event's
 * payload is the webhook envelope of the app's `toSnapshot` of it, its events are versions 0..state_version, and
 * its deliveries' attempts number what each delivery says.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import { scanLedgerSums, sumLedger, type LedgerSum } from '../../server/src/db/queries/ledgerEntries.js';
import { paymentDayTotals, type DayTotals } from '../../server/src/db/queries/paymentOverview.js';
import { readDayTotals } from '../../server/src/db/queries/paymentDayTotals.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { toSnapshot } from '../../server/src/payments/snapshot.js';
import { noBuyers } from './_scaleSqlTemplates.js';

const DAY = 86_400_000;
const STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'];

const sorted = <T>(rows: T[]) =>
  rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort();

function same(what: string, a: unknown, b: unknown): void {
  if (!isDeepStrictEqual(a, b)) throw new Error(`scale fill check: ${what} differ`);
}

export async function checkFill(knex: Knex, merchantId: string, now: number): Promise<void> {
  const scope = { merchantId, live: false };
  same(
    'the overview rollup and the scan of the payments',
    sorted<DayTotals>(await readDayTotals(knex, scope, 0, Math.floor(now / DAY) + 1)),
    sorted<DayTotals>(await paymentDayTotals(knex, scope, 0, now + DAY)),
  );
  same(
    'the ledger totals and the scan of the entries',
    sorted<LedgerSum>(await sumLedger(knex, { merchantId })),
    sorted<LedgerSum>(await scanLedgerSums(knex, { merchantId })),
  );
  for (const status of STATUSES) {
    const one = (await knex('payments').where({ merchant_id: merchantId, status }).first('id')) as
      { id: string } | undefined;
    if (!one) continue;
    const row = (await findPayment(knex, one.id))!;
    const events = (await knex('events')
      .where({ payment_id: row.id })
      .orderBy('state_version')
      .select('id', 'state_version', 'payload')) as { id: string; state_version: number; payload: string }[];
    same(
      `the event versions of a ${status} payment`,
      events.map((e) => Number(e.state_version)),
      Array.from({ length: row.state_version + 1 }, (_, i) => i),
    );
    const last = JSON.parse(events.at(-1)!.payload) as { id: string; data: unknown };
    same(`the last event id of a ${status} payment`, last.id, events.at(-1)!.id);
    same(
      `the snapshot in a ${status} payment's event and toSnapshot`,
      last.data,
      JSON.parse(JSON.stringify(toSnapshot(row, noBuyers))),
    );
    const deliveries = (await knex('webhook_deliveries as d')
      .where({ 'd.payment_id': row.id })
      .select(
        'd.attempt_count',
        knex.raw('(select count(*) from webhook_attempts a where a.delivery_id = d.id) as n'),
      )) as {
      attempt_count: number;
      n: number | string;
    }[];
    if (deliveries.length < events.length) throw new Error(`scale fill check: a ${status} payment lacks deliveries`);
    for (const d of deliveries) same(`a ${status} payment's delivery's attempts`, Number(d.n), Number(d.attempt_count));
  }
}
