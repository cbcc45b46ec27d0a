/**
 * getDashboardSettlementBalances: collected mode's unpaid balance of the request's mode from the ledger, exact beyond
 * 2^64 on both databases (amounts are text summed with BigInt), the merchant API's answer under the session's auth.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { callAs, createPerson, sessionFor } from './people.js';
import { CHAIN, HUGE, USDC, writeSettlement } from './settlementData.js';

describeEachDatabase('dashboard.getDashboardSettlementBalances', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    await writeSettlement(get().db.knex, m.account.merchantId, Date.UTC(2026, 1, 18, 10));
  });
  after(() => d.close());

  it('getDashboardSettlementBalances answers payable − paid out per chain and asset, the same as the merchant API', async () => {
    const live = {
      data: [{ chain_caip2: CHAIN, unpaid: { unit: `caip19/${USDC}`, value: (HUGE - 1_000_000n).toString() } }],
    };
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/balances', { live: true }), 200), live);
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/merchant/settlements', { live: true }), 200), live);
  });

  it('getDashboardSettlementBalances for a viewer’s session reads the mode the request names; a new merchant has none', async () => {
    const viewer = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role: 'viewer' });
    const session = await sessionFor(d.harness, viewer);
    const test = await callAs(d.harness, session, 'GET', '/v1/dashboard/balances', {
      merchantId: m.account.merchantId,
    });
    assert.deepEqual(await expectJson(test, 200), {
      data: [{ chain_caip2: CHAIN, unpaid: { unit: `caip19/${USDC}`, value: '7' } }],
    });
    const other = await d.merchant();
    assert.deepEqual(await expectJson(await other.call('GET', '/v1/dashboard/balances'), 200), { data: [] });
  });
});
