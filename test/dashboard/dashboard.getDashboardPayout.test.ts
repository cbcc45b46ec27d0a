/**
 * getDashboardPayout: one payout of the request's mode with the payments it covered and exact amounts beyond 2^64;
 * another mode's or an unknown id is 404 invalid_params.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { DESTINATION, HUGE, PAYOUT_TX, USDC, writeSettlement, type SettlementData } from './settlementData.js';

describeEachDatabase('dashboard.getDashboardPayout', (get) => {
  let d: Dashboard;
  let m: Merchant;
  let s: SettlementData;
  const t0 = Date.UTC(2026, 1, 18, 10);
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    s = await writeSettlement(get().db.knex, m.account.merchantId, t0);
  });
  after(() => d.close());

  it('getDashboardPayout answers the payout, its transaction and each payment’s gross, fee and net', async () => {
    const money = (value: bigint) => ({ unit: `caip19/${USDC}`, value: value.toString() });
    const payout = await expectJson<Record<string, unknown>>(
      await m.call('GET', `/v1/dashboard/payouts/${s.payouts.final}`, { live: true }),
      200,
    );
    assert.deepEqual(payout, {
      payout_id: s.payouts.final,
      live: true,
      chain_caip2: 'eip155:8453',
      gross: money(12_500_000n + HUGE),
      fee: money(226_000n),
      net: money(12_500_000n + HUGE - 226_000n),
      destination: DESTINATION,
      state: 'final',
      tx_id: PAYOUT_TX,
      created_at: new Date(t0 + 60_000).toISOString(),
      sent_at: new Date(t0 + 61_000).toISOString(),
      final_at: new Date(t0 + 120_000).toISOString(),
      payments: [
        { payment_id: s.payments[0], gross: money(12_500_000n), fee: money(225_000n), net: money(12_275_000n) },
        { payment_id: s.payments[1], gross: money(HUGE), fee: money(1_000n), net: money(HUGE - 1_000n) },
      ].sort((a, b) => (a.payment_id! < b.payment_id! ? -1 : 1)),
    });
  });

  it('getDashboardPayout: a payout of the other mode, or an unknown one, is 404 invalid_params', async () => {
    await expectError(await m.call('GET', `/v1/dashboard/payouts/${s.payouts.final}`), 404, 'invalid_params');
    await expectError(
      await m.call('GET', `/v1/dashboard/payouts/${s.testPayout}`, { live: true }),
      404,
      'invalid_params',
    );
    await expectError(await m.call('GET', '/v1/dashboard/payouts/po_AAAAAAAAAAAAAAAAAAAA'), 404, 'invalid_params');
  });
});
