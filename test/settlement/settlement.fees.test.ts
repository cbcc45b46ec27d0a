/**
 * The fee balance of direct settlement (settlement/fees.ts): the merchant API's getFeeBalance and the dashboard's
 * getDashboardFeeBalance answer accrued, invoiced and outstanding per chain and asset of the request's mode, exactly;
 * invoicing is idempotent by its invoice id.
 */
import assert from 'node:assert/strict';
import type { LedgerEntry } from '../../server/src/db/queries/ledgerEntries.js';
import { invoiceFees, listFeeBalances } from '../../server/src/settlement/feeBalance.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectJson, startDashboard, type Dashboard, type Merchant } from '../dashboard/harness.js';
import { callAs, createPerson, sessionFor } from '../dashboard/people.js';

const BASE = 'eip155:8453';
const USDC = `${BASE}/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913`;
const SOL = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const SOL_USDC = `${SOL}/token:EPjFWdd5AufqSSqeM2qJxdDm5rEtJhPBpNBbVi1Rjcgb`;
// Beyond 2^64: sums are exact whatever the token's decimals.
const HUGE = 2n ** 64n + 7n;

describeEachDatabase('settlement.fees', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
  });
  after(() => d.close());

  const fee = (over: Partial<LedgerEntry>): LedgerEntry => ({
    entryKey: 'fee:x',
    kind: 'fee',
    merchantId: m.account.merchantId,
    live: true,
    mode: 'direct',
    chain: BASE,
    asset: USDC,
    amount: 1n,
    address: null,
    createdAt: 0,
    ...over,
  });

  it('getFeeBalance and getDashboardFeeBalance answer the fees of the mode exactly, per chain and asset', async () => {
    const knex = get().db.knex;
    await insertLedgerEntries(knex, [
      fee({ entryKey: 'fee:pay_1', amount: 225_000n }),
      fee({ entryKey: 'fee:pay_2', amount: HUGE }),
      fee({ entryKey: 'fee:pay_3', chain: SOL, asset: SOL_USDC, amount: 3n }),
      fee({ entryKey: 'fee:pay_4', live: false, amount: 40n }),
      // Collected mode's fees are kept from payouts, never owed: not in the balance.
      fee({ entryKey: 'fee:pay_5', mode: 'collected', amount: 999n }),
      fee({ entryKey: 'fee_invoiced:inv_a', kind: 'fee_invoiced', amount: 25_000n }),
    ]);
    const liveBalances = {
      live: true,
      balances: [
        {
          chain: BASE,
          asset: `caip19/${USDC}`,
          accrued: (225_000n + HUGE).toString(),
          invoiced: '25000',
          outstanding: (200_000n + HUGE).toString(),
        },
        { chain: SOL, asset: `caip19/${SOL_USDC}`, accrued: '3', invoiced: '0', outstanding: '3' },
      ],
    };
    const testBalances = {
      live: false,
      balances: [{ chain: BASE, asset: `caip19/${USDC}`, accrued: '40', invoiced: '0', outstanding: '40' }],
    };
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/merchant/fees', { live: true }), 200), liveBalances);
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/merchant/fees'), 200), testBalances);
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/fees', { live: true }), 200), liveBalances);

    // A viewer may read it (OPERATION_ROLES), in the mode the session's request names.
    const viewer = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role: 'viewer' });
    const session = await sessionFor(d.harness, viewer);
    const res = await callAs(d.harness, session, 'GET', '/v1/dashboard/fees', { merchantId: m.account.merchantId });
    assert.deepEqual(await expectJson(res, 200), testBalances);

    const other = await d.merchant();
    assert.deepEqual(await expectJson(await other.call('GET', '/v1/merchant/fees', { live: true }), 200), {
      live: true,
      balances: [],
    });
  });

  it('invoiceFees invoices what is outstanding once per invoice id, per asset when asked', async () => {
    const knex = get().db.knex;
    const merchantId = (await d.merchant()).account.merchantId;
    await insertLedgerEntries(knex, [
      fee({ merchantId, entryKey: `fee:${merchantId}:1`, amount: 500n }),
      fee({ merchantId, entryKey: `fee:${merchantId}:2`, chain: SOL, asset: SOL_USDC, amount: 70n }),
    ]);
    const first = await invoiceFees(knex, { merchantId, invoiceId: 'INV-1', live: true, asset: USDC, now: 1 });
    assert.equal(first.repeated, false);
    assert.deepEqual(first.lines, [{ live: true, chain: BASE, asset: USDC, amount: 500n }]);
    const again = await invoiceFees(knex, { merchantId, invoiceId: 'INV-1', live: true, now: 2 });
    assert.equal(again.repeated, true);
    assert.deepEqual(again.lines, first.lines);

    await insertLedgerEntries(knex, [fee({ merchantId, entryKey: `fee:${merchantId}:3`, amount: 11n })]);
    const second = await invoiceFees(knex, { merchantId, invoiceId: 'INV-2', live: true, now: 3 });
    assert.deepEqual(
      second.lines.map((l) => [l.asset, l.amount]),
      [
        [USDC, 11n],
        [SOL_USDC, 70n],
      ],
    );
    const balances = await listFeeBalances(knex, { merchantId, live: true });
    assert.deepEqual(
      balances.map((b) => [b.asset, b.accrued, b.invoiced, b.outstanding]),
      [
        [USDC, 511n, 511n, 0n],
        [SOL_USDC, 70n, 70n, 0n],
      ],
    );
    const nothing = await invoiceFees(knex, { merchantId, invoiceId: 'INV-3', live: true, now: 4 });
    assert.deepEqual(nothing, { lines: [], repeated: false });
  });
});
