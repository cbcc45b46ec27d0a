/**
 * The overview's rollup (payment_day_totals, docs/decisions.md §24.4) is kept by the payment writer; after any mix of
 * creates and transitions it must equal a full scan of the payments, and the migration's backfill must build the
 * same rows from payments already there.
 */
import assert from 'node:assert/strict';
import type { Runtime } from '@paygate/server';
import { paymentDayTotals, type DayTotals } from '../../server/src/db/queries/paymentOverview.js';
import { readDayTotals } from '../../server/src/db/queries/paymentDayTotals.js';
import * as rollupMigration from '../../server/src/db/migrations/018_payment_day_totals.js';
import { createPayment, transitionPayment, type NewPayment } from '../../server/src/payments/lifecycle.js';
import { transitions, type PaymentStatus } from '../../server/src/payments/stateMachine.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

const DAY = 86_400_000;

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const byKey = (rows: DayTotals[]) =>
  rows.map((r) => `${r.day} ${r.amount_unit} ${r.count} ${r.succeeded} ${r.final} ${r.volume}`).sort();

describeEachDatabase('dashboard.getOverview rollup', (get) => {
  let runtime: Runtime;
  let clock: TestClock;
  const merchants: string[] = [];
  const start = Date.UTC(2026, 1, 1, 23, 0, 0);
  const knex = () => get().db.knex;

  before(async () => {
    clock = testClock(start);
    runtime = await testRuntime({ db: get().db, clock });
    merchants.push(await seedMerchant(knex(), 'mer_rollup0000000001'));
    merchants.push(await seedMerchant(knex(), 'mer_rollup0000000002'));
  });
  after(() => runtime.close());

  /** Every merchant's and mode's rollup rows against the grouped scan of its payments, over all days. */
  async function assertRollupEqualsScan(): Promise<number> {
    let rows = 0;
    for (const merchantId of merchants) {
      for (const live of [false, true]) {
        const scope = { merchantId, live };
        const scanned = await paymentDayTotals(knex(), scope, 0, clock.now() + 365 * DAY);
        const rolled = await readDayTotals(knex(), scope, 0, Math.floor(clock.now() / DAY) + 365);
        assert.deepEqual(byKey(rolled), byKey(scanned), `${merchantId} live=${live}`);
        rows += scanned.length;
      }
    }
    return rows;
  }

  it('after a random mix of creates and transitions the rollup equals a full scan of the payments', async () => {
    const next = random(36);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const open: { id: string; status: PaymentStatus }[] = [];
    for (let round = 0; round < 40; round++) {
      // Creates in one group commit (several at once) and in a caller's transaction.
      const inputs: NewPayment[] = Array.from({ length: 1 + Math.floor(next() * 6) }, () => ({
        merchantId: pick(merchants),
        live: next() < 0.3,
        referenceId: 'rollup',
        // Up to 15 digits, as creation allows, so a day's sum passes 2^53.
        amount: { unit: pick(['iso4217/USD', 'iso4217/EUR']), value: String(1 + Math.floor(next() * 999e12)) },
        expiresAt: clock.now() + DAY,
        successUrl: null,
        errorUrl: null,
      }));
      const created = await Promise.all(inputs.map((input) => createPayment(runtime, input)));
      if (next() < 0.3) created.push(await knex().transaction((trx) => createPayment(runtime, inputs[0]!, trx)));
      for (const p of created) open.push({ id: p.id, status: p.status });
      // Transitions of payments created on this day and earlier ones (a change moves the payment's creation day).
      for (let n = 0; n < 6; n++) {
        const candidates = open.filter((p) => transitions[p.status].length > 0);
        if (candidates.length === 0) break;
        const p = pick(candidates);
        const to = pick(transitions[p.status]);
        await transitionPayment(runtime, p.id, { to, stages: {} });
        p.status = to;
      }
      // About every third round crosses a UTC midnight.
      clock.advance(Math.floor(next() * 20 * 3_600_000));
    }
    const statuses = new Set(open.map((p) => p.status));
    assert.deepEqual([...statuses].sort(), [
      'cancelled',
      'expired',
      'failed',
      'processing',
      'requires_action',
      'succeeded',
    ]);
    assert.ok((await assertRollupEqualsScan()) > 20, 'the mix spreads over many day rows');
  });

  it('the migration builds the same rollup from the payments already there', async () => {
    const before = await knex()('payment_day_totals').count({ n: '*' });
    await knex().schema.dropTable('payment_day_totals');
    await rollupMigration.up(knex());
    assert.deepEqual(await knex()('payment_day_totals').count({ n: '*' }), before);
    await assertRollupEqualsScan();
  });
});
