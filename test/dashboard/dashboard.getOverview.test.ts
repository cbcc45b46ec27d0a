import assert from 'node:assert/strict';
import { insertPayments } from '../../server/src/db/queries/payments.js';
import { newId } from '../../server/src/ids.js';
import { successRate } from '../../server/src/payments/overview.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

interface Window {
  volume: string;
  count: number;
  succeeded: number;
  open: number;
  successRate: string | null;
}
interface Overview {
  mode: 'test' | 'live';
  currencies: { currency: string; today: Window; last7Days: Window; last30Days: Window }[];
  series: { date: string; currency: string; volume: string; count: number }[];
}

const DAY = 86_400_000;
/** The test clock's "now": 2026-02-18 10:00 UTC. */
const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);
const TODAY = Date.UTC(2026, 1, 18);
/** Each value is below 10^15, as payment creation allows; ten of them sum beyond 2^53. */
const BIG = '999999999999999';

describeEachDatabase('dashboard.getOverview', (get) => {
  let d: Dashboard;
  let m: Merchant;

  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    const other = await d.merchant();
    type Status = 'requires_action' | 'processing' | 'succeeded' | 'failed' | 'expired' | 'cancelled';
    const row = (
      at: number,
      status: Status,
      unit: string,
      value: string,
      merchantId = m.account.merchantId,
      live = false,
    ) => ({
      id: newId.payment(),
      merchant_id: merchantId,
      live,
      status,
      state_version: 0,
      reference_id: 'o',
      amount_unit: `iso4217/${unit}`,
      amount_value: value,
      success_url: null,
      error_url: null,
      created_at: at,
      expires_at: NOW + 10 * DAY,
      updated_at: at,
    });
    await insertPayments(d.harness.runtime.db.knex, [
      ...Array.from({ length: 10 }, () => row(NOW - 1000, 'succeeded', 'USD', BIG)),
      row(NOW, 'failed', 'USD', '100'),
      row(NOW, 'requires_action', 'USD', '200'),
      row(TODAY, 'requires_action', 'USD', '1'), // the first millisecond of today
      row(TODAY - 1, 'processing', 'USD', '1'), // the last millisecond of yesterday
      row(NOW - 3 * DAY, 'succeeded', 'USD', '1250'),
      row(NOW - 3 * DAY, 'expired', 'USD', '50'),
      row(NOW - 10 * DAY, 'cancelled', 'USD', '10'),
      row(NOW - 10 * DAY, 'succeeded', 'USD', '5'),
      row(TODAY - 29 * DAY, 'succeeded', 'USD', '3'), // the first day of the 30
      row(TODAY - 29 * DAY - 1, 'succeeded', 'USD', '7'), // the day before: outside
      row(NOW - 6 * DAY, 'succeeded', 'EUR', '200'),
      row(NOW - 7 * DAY, 'succeeded', 'EUR', '300'),
      row(NOW, 'succeeded', 'USD', '900', m.account.merchantId, true), // live
      row(NOW, 'succeeded', 'USD', '800', other.account.merchantId), // another merchant
    ]);
  });
  after(() => d.close());

  it('getOverview totals per currency for today, 7 and 30 UTC days, exactly beyond 2^53', async () => {
    const o = await expectJson<Overview>(await m.call('GET', '/v1/dashboard/overview'), 200);
    assert.equal(o.mode, 'test');
    const big10 = (BigInt(BIG) * 10n).toString();
    assert.ok(BigInt(big10) > 2n ** 53n);
    assert.deepEqual(o.currencies, [
      {
        currency: 'iso4217/EUR',
        today: { volume: '0', count: 0, succeeded: 0, open: 0, successRate: null },
        last7Days: { volume: '200', count: 1, succeeded: 1, open: 0, successRate: '1.0000' },
        last30Days: { volume: '500', count: 2, succeeded: 2, open: 0, successRate: '1.0000' },
      },
      {
        currency: 'iso4217/USD',
        // 10 succeeded of 11 final (the 2 open payments are left out of the rate, and counted in `open`).
        today: { volume: big10, count: 13, succeeded: 10, open: 2, successRate: '0.9091' },
        last7Days: {
          volume: (BigInt(big10) + 1250n).toString(),
          count: 16,
          succeeded: 11,
          open: 3,
          successRate: '0.8462',
        },
        last30Days: {
          volume: (BigInt(big10) + 1250n + 5n + 3n).toString(),
          count: 19,
          succeeded: 13,
          open: 3,
          successRate: '0.8125',
        },
      },
    ]);
  });

  it('getOverview gives 30 zero-filled UTC days per currency, oldest first', async () => {
    const o = await expectJson<Overview>(await m.call('GET', '/v1/dashboard/overview'), 200);
    assert.equal(o.series.length, 60);
    const usd = o.series.filter((p) => p.currency === 'iso4217/USD');
    assert.deepEqual(
      o.series.slice(0, 30).map((p) => p.currency),
      Array(30).fill('iso4217/EUR'),
    );
    assert.equal(usd[0]!.date, '2026-01-20');
    assert.equal(usd[29]!.date, '2026-02-18');
    assert.deepEqual(usd[0], { date: '2026-01-20', currency: 'iso4217/USD', volume: '3', count: 1 });
    assert.deepEqual(usd[28], { date: '2026-02-17', currency: 'iso4217/USD', volume: '0', count: 1 });
    assert.deepEqual(usd[29], {
      date: '2026-02-18',
      currency: 'iso4217/USD',
      volume: (BigInt(BIG) * 10n).toString(),
      count: 13,
    });
    assert.deepEqual(usd[26], { date: '2026-02-15', currency: 'iso4217/USD', volume: '1250', count: 2 });
    assert.deepEqual(usd[27], { date: '2026-02-16', currency: 'iso4217/USD', volume: '0', count: 0 });
  });

  it('getOverview covers the request’s mode only, and is empty without payments', async () => {
    const live = await expectJson<Overview>(await m.call('GET', '/v1/dashboard/overview', { live: true }), 200);
    assert.equal(live.mode, 'live');
    assert.deepEqual(
      live.currencies.map((c) => [c.currency, c.today.volume]),
      [['iso4217/USD', '900']],
    );
    const empty = await d.merchant();
    assert.deepEqual(await expectJson(await empty.call('GET', '/v1/dashboard/overview'), 200), {
      mode: 'test',
      currencies: [],
      series: [],
    });
  });
});

describe('dashboard.getOverview successRate', () => {
  it('rounds half up to 4 digits in integer arithmetic, null when nothing is final', () => {
    assert.equal(successRate(2, 3), '0.6667');
    assert.equal(successRate(1, 3), '0.3333');
    assert.equal(successRate(1, 32), '0.0313');
    assert.equal(successRate(1, 16), '0.0625');
    assert.equal(successRate(0, 5), '0.0000');
    assert.equal(successRate(5, 5), '1.0000');
    assert.equal(successRate(0, 0), null);
  });
});
