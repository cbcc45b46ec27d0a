/**
 * The scale benchmark (`npm run bench -- scale`, scripts/bench/scale.ts) at a tiny size, so that its fill and its
 * measurements cannot rot between the runs that publish its figures: the fill writes rows the server reads back
 * (every read answers 200 through the HTTP API), the exports stream every row, and the overview's rollup built after
 * the fill equals a scan of the filled payments.
 */
import assert from 'node:assert/strict';
import { paymentDayTotals, type DayTotals } from '../../server/src/db/queries/paymentOverview.js';
import { scanLedgerSums, sumLedger, type LedgerSum } from '../../server/src/db/queries/ledgerEntries.js';
import { readDayTotals } from '../../server/src/db/queries/paymentDayTotals.js';
import { markdownOf, runOne } from '../../scripts/bench/scale.js';
import { describeEachDatabase } from '../helpers/db.js';

const sumsByKey = (sums: LedgerSum[]) =>
  sums.map((x) => [x.merchantId, x.live, x.mode, x.chain, x.asset, x.address, x.kind, x.amount].join(' ')).sort();

describeEachDatabase('ops.benchScale', (get, dialect) => {
  it('fills 1,000 then 2,000 payments and measures every read, export and create at each size', async function () {
    // Seconds on a quiet machine; minutes when eight sessions share its two cores.
    this.timeout(180_000);
    const db = get().db;
    const result = await runOne(db, [1000, 2000], { iterations: 2, createSeconds: 0.2, timelineDeliveries: 50 });
    assert.deepEqual(
      result.sizes.map((s) => s.payments),
      [1000, 2000],
    );
    assert.ok(result.emptyCreatesPerSecond > 0);
    assert.ok(result.emptyConfirmsPerSecond! > 0 && result.emptyDeliveriesPerSecond! > 0);
    for (const size of result.sizes) {
      assert.equal(Object.keys(size.reads).length, Object.keys(result.targets).length);
      for (const [name, t] of Object.entries(size.reads)) assert.ok(t.p95 >= t.p50 && t.p50 > 0, name);
      assert.ok(size.exports.payments!.rows >= size.payments, 'every filled payment is exported');
      assert.ok(size.exports.ledger!.rows > size.payments, 'about two ledger rows per payment');
      assert.ok(size.createsPerSecond > 0 && size.databaseBytes > 0);
      assert.ok(size.confirmsPerSecond! > 0 && size.deliveriesPerSecond! > 0);
      if (dialect === 'postgres')
        assert.ok(
          size.plans!['payments list']!.some((n) => /Index/.test(n)),
          'a plan per read',
        );
    }
    const [merchant] = (await db
      .knex('payments')
      .groupBy('merchant_id')
      .orderByRaw('count(*) desc')
      .select('merchant_id')) as { merchant_id: string }[];
    const scope = { merchantId: merchant!.merchant_id, live: false };
    const end = Date.now() + 86_400_000;
    const byKey = (rows: DayTotals[]) => rows.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(
      byKey(await readDayTotals(db.knex, scope, 0, Math.floor(end / 86_400_000))),
      byKey(await paymentDayTotals(db.knex, scope, 0, end)),
    );
    // The ledger totals, rebuilt after the fill and kept by the triggers since, equal the entries.
    assert.deepEqual(sumsByKey(await sumLedger(db.knex, {})), sumsByKey(await scanLedgerSums(db.knex, {})));
    const markdown = markdownOf([result], 'smoke');
    assert.match(markdown, /\| overview \(today, 7, 30 days\) \| 100 \|/);
  });
});
