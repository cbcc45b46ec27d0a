/**
 * exportLedger: the settlement ledger of the request's mode as streamed RFC 4180 CSV, oldest first, with the creation
 * window, the formula guard and exact decimals of the asset's configured decimals (both databases: ledger amounts are
 * text, beyond 2^64 here).
 */
import assert from 'node:assert/strict';
import { decimalOf } from '../../server/src/currencies.js';
import { exportLedgerCsv } from '../../server/src/settlement/settlementExport.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { parseCsv } from './merchantData.js';
import {
  CHAIN,
  DESTINATION,
  DIRECT_TX,
  HUGE,
  PAYOUT_TX,
  USDC,
  writeSettlement,
  type SettlementData,
} from './settlementData.js';

const HEADER = [
  'created_at',
  'kind',
  'settlement_mode',
  'payment_id',
  'payout_id',
  'refund_id',
  'chain',
  'asset',
  'amount_value',
  'amount',
  'symbol',
  'address',
  'tx_id',
  'entry_key',
];

describeEachDatabase('dashboard.exportLedger', (get) => {
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

  const exportCsv = (query = '', live = true) => m.call('GET', `/v1/dashboard/ledger/export${query}`, { live });

  it('exportLedger streams every entry of the mode, oldest first, with the formula guard', async () => {
    const res = await exportCsv();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8$/);
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="ledger-live-2026-02-18.csv"');
    const [p0, p1] = s.payments;
    // No chain configured on this server: the asset's decimals and symbol are unknown, so those columns are empty.
    assert.deepEqual(parseCsv(await res.text()), [
      HEADER,
      [
        iso(t0),
        'received',
        'direct',
        p0,
        '',
        '',
        CHAIN,
        USDC,
        '12500000',
        '',
        '',
        DESTINATION,
        DIRECT_TX,
        `received:${p0}`,
      ],
      [iso(t0 + 1000), 'fee', 'direct', p0, '', '', CHAIN, USDC, '225000', '', '', '', '', `fee:${p0}`],
      [
        iso(t0 + 2000),
        'payable',
        'collected',
        p1,
        '',
        '',
        CHAIN,
        USDC,
        HUGE.toString(),
        '',
        '',
        '',
        '',
        `payable:${p1}`,
      ],
      [
        iso(t0 + 3000),
        'paid_out',
        'collected',
        p1,
        s.payouts.final,
        '',
        CHAIN,
        USDC,
        '1000000',
        '',
        '',
        "'=cmd|calc",
        PAYOUT_TX,
        `paid_out:${s.payouts.final}:${p1}`,
      ],
    ]);
  });

  it('exportLedger applies the creation window and exports the request’s mode only', async () => {
    const window = `?createdGte=${t0 / 1000 + 1}&createdLt=${t0 / 1000 + 3}`;
    assert.deepEqual(
      parseCsv(await (await exportCsv(window)).text()).map((r) => r[1]),
      ['kind', 'fee', 'payable'],
    );
    const test = await exportCsv('', false);
    assert.equal(test.headers.get('content-disposition'), 'attachment; filename="ledger-test-2026-02-18.csv"');
    assert.deepEqual(
      parseCsv(await test.text()).map((r) => r[13]),
      ['entry_key', 'payable:test'],
    );
    await expectError(await exportCsv('?createdGte=-1'), 400, 'params_validation');
    await expectError(await exportCsv('?limit=5'), 400, 'invalid_params');
  });

  it('exportLedger writes configured assets as exact decimals with their symbol; small pages give the same file', async () => {
    const scope = { merchantId: m.account.merchantId, live: true };
    let text = '';
    for await (const chunk of exportLedgerCsv(get().db.knex, scope, {}, () => ({ decimals: 6, symbol: 'USDC' }), 1)) {
      text += chunk;
    }
    assert.deepEqual(
      parseCsv(text).map((r) => [r[9], r[10]]),
      [
        ['amount', 'symbol'],
        ['12.500000', 'USDC'],
        ['0.225000', 'USDC'],
        [decimalOf(HUGE, 6), 'USDC'],
        ['1.000000', 'USDC'],
      ],
    );
    assert.equal(decimalOf(HUGE, 6), '18446744073709.551623');
    let unknown = '';
    for await (const chunk of exportLedgerCsv(get().db.knex, scope, {}, () => null, 1)) unknown += chunk;
    assert.equal(unknown, await (await exportCsv()).text());
  });
});
