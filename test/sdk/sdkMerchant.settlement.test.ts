/**
 * The SDK's settlement methods against a real server (answers validated by the contract): getSettlementBalances,
 * listPayouts (async iteration across pages, fetched as it goes, and `pages()`), getPayout, getFeeBalance, and
 * refund's `amount` sent in the body.
 */
import assert from 'node:assert/strict';
import { PaygateError, type Payout } from '@paygate/sdk-merchant';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { CHAIN, HUGE, USDC, writeSettlement, type SettlementData } from '../dashboard/settlementData.js';
import { startSdkHarness, usd, type SdkHarness } from './helpers.js';

describe('sdkMerchant.settlement', () => {
  let h: SdkHarness;
  let s: SettlementData;
  before(async () => {
    h = await startSdkHarness();
    s = await writeSettlement(h.runtime.db.knex, h.account.merchantId, h.clock.now() - 3_600_000);
  });
  after(() => h.close());

  const live = () => h.merchant({ apiKey: h.account.liveKey });

  it('getSettlementBalances answers the unpaid balance of the key’s mode, exact beyond 2^64', async () => {
    assert.deepEqual(await live().getSettlementBalances(), {
      data: [{ chain_caip2: CHAIN, unpaid: { unit: `caip19/${USDC}`, value: (HUGE - 1_000_000n).toString() } }],
    });
    assert.deepEqual((await h.merchant().getSettlementBalances()).data[0]!.unpaid.value, '7');
  });

  it('listPayouts iterates every payout across pages, newest first, one request per page', async () => {
    const from = h.proxy.log.length;
    const seen: Payout[] = [];
    for await (const payout of live().listPayouts({ limit: 2 })) seen.push(payout);
    assert.deepEqual(
      seen.map((p) => [p.payout_id, p.state, p.payments.length]),
      [
        [s.payouts.sent, 'sent', 1],
        [s.payouts.final, 'final', 2],
        [s.payouts.failed, 'failed', 0],
      ],
    );
    assert.deepEqual(h.exchanges(from), [
      'GET /v1/merchant/payouts?limit=2 → 200',
      `GET /v1/merchant/payouts?limit=2&startingAfter=${s.payouts.final} → 200`,
    ]);
    const sizes: number[] = [];
    for await (const page of live().listPayouts({ limit: 2 }).pages()) sizes.push(page.data.length);
    assert.deepEqual(sizes, [2, 1]);
  });

  it('getPayout answers one payout with its payments; another mode’s is a PaygateError 404 invalid_params', async () => {
    const payout = await live().getPayout(s.payouts.final);
    assert.deepEqual(payout.payments.map((p) => p.payment_id).sort(), [s.payments[0], s.payments[1]].sort());
    const refused = await h
      .merchant()
      .getPayout(s.payouts.final)
      .catch((e: unknown) => e);
    assert.ok(refused instanceof PaygateError);
    assert.deepEqual([refused.status, refused.code], [404, 'invalid_params']);
  });

  it('getFeeBalance answers direct mode’s accrued, invoiced and outstanding fees', async () => {
    await insertLedgerEntries(h.runtime.db.knex, [
      {
        entryKey: 'fee_invoiced:sdk',
        kind: 'fee_invoiced',
        merchantId: h.account.merchantId,
        live: true,
        mode: 'direct',
        chain: CHAIN,
        asset: USDC,
        amount: 25_000n,
        address: null,
        createdAt: h.clock.now(),
      },
    ]);
    assert.deepEqual(await live().getFeeBalance(), {
      live: true,
      balances: [
        { chain: CHAIN, asset: `caip19/${USDC}`, accrued: '225000', invoiced: '25000', outstanding: '200000' },
      ],
    });
    assert.deepEqual(await h.merchant().getFeeBalance(), { live: false, balances: [] });
  });

  it('refund sends amount with the reason; a payment not settled in collected mode refuses it', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd('1250', 'order_refund'));
    await paygate.simulate(paymentId, 'processing');
    await paygate.simulate(paymentId, 'succeeded');
    const from = h.proxy.log.length;
    const refused = await paygate.refund(paymentId, { reason: 'returned', amount: '500' }).catch((e: unknown) => e);
    assert.ok(refused instanceof PaygateError);
    assert.equal(refused.code, 'params_validation');
    assert.deepEqual(JSON.parse(h.proxy.log[from]!.body), { reason: 'returned', amount: '500' });
  });
});
