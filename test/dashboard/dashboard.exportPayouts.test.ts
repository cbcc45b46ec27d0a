/**
 * exportPayouts: the payouts of the request's mode as streamed RFC 4180 CSV, one row per payment a payout covered,
 * newest payout first; a payout with no payment left keeps its row; the creation window (both databases).
 */
import assert from 'node:assert/strict';
import { exportPayoutsCsv } from '../../server/src/settlement/settlementExport.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { parseCsv } from './merchantData.js';
import { CHAIN, DESTINATION, HUGE, PAYOUT_TX, USDC, writeSettlement, type SettlementData } from './settlementData.js';

const HEADER = [
  'payout_id',
  'state',
  'created_at',
  'sent_at',
  'final_at',
  'chain',
  'asset',
  'symbol',
  'destination',
  'tx_id',
  'payment_id',
  'gross_value',
  'fee_value',
  'net_value',
  'gross',
  'fee',
  'net',
];

describeEachDatabase('dashboard.exportPayouts', (get) => {
  let d: Dashboard;
  let m: Merchant;
  let s: SettlementData;
  const t0 = Date.UTC(2026, 1, 18, 10);
  const iso = (ms: number) => new Date(ms).toISOString();
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    s = await writeSettlement(get().db.knex, m.account.merchantId, t0);
  });
  after(() => d.close());

  const exportCsv = (query = '', live = true) => m.call('GET', `/v1/dashboard/payouts/export${query}`, { live });

  it('exportPayouts streams one row per payment covered, with the payout’s state and transaction', async () => {
    const res = await exportCsv();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="payouts-live-2026-02-18.csv"');
    const [p0, p1, p2] = s.payments;
    const final = [s.payouts.final, 'final', iso(t0 + 60_000), iso(t0 + 61_000), iso(t0 + 120_000), CHAIN, USDC, ''];
    const finalRows = [
      [...final, DESTINATION, PAYOUT_TX, p0!, '12500000', '225000', '12275000', '', '', ''],
      [...final, DESTINATION, PAYOUT_TX, p1!, HUGE.toString(), '1000', (HUGE - 1000n).toString(), '', '', ''],
    ].sort((a, b) => (a[10]! < b[10]! ? -1 : 1));
    assert.deepEqual(parseCsv(await res.text()), [
      HEADER,
      [
        s.payouts.sent,
        'sent',
        iso(t0 + 120_000),
        iso(t0 + 121_000),
        '',
        CHAIN,
        USDC,
        '',
        DESTINATION,
        `0x${'ab'.repeat(32)}`,
        p2,
        '5000000',
        '90000',
        '4910000',
        '',
        '',
        '',
      ],
      ...finalRows,
      [s.payouts.failed, 'failed', iso(t0), '', '', CHAIN, USDC, '', DESTINATION, '', '', '', '', '', '', '', ''],
    ]);
  });

  it('exportPayouts applies the creation window and the request’s mode; refuses a bad filter as JSON', async () => {
    const window = `?createdGte=${t0 / 1000 + 60}&createdLt=${t0 / 1000 + 120}`;
    assert.deepEqual(
      parseCsv(await (await exportCsv(window)).text()).map((r) => r[0]),
      ['payout_id', s.payouts.final, s.payouts.final],
    );
    assert.deepEqual(
      parseCsv(await (await exportCsv('', false)).text()).map((r) => r[0]),
      ['payout_id', s.testPayout],
    );
    await expectError(await exportCsv('?createdLt=x'), 400, 'params_validation');
  });

  it('exportPayouts writes decimals of a configured asset; pages of one payout give the same rows', async () => {
    const scope = { merchantId: m.account.merchantId, live: true };
    let text = '';
    for await (const chunk of exportPayoutsCsv(get().db.knex, scope, {}, () => ({ decimals: 6, symbol: 'USDC' }), 1)) {
      text += chunk;
    }
    const rows = parseCsv(text);
    assert.deepEqual(rows[1]!.slice(14), ['5.000000', '0.090000', '4.910000']);
    assert.equal(rows[1]![7], 'USDC');
    assert.equal(rows.length, 5);
    let unknown = '';
    for await (const chunk of exportPayoutsCsv(get().db.knex, scope, {}, () => null, 1)) unknown += chunk;
    assert.equal(unknown, await (await exportCsv()).text());
  });
});
