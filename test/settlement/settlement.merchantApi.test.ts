/**
 * The merchant contract's Settlement operations over HTTP (responses validated against the contract): listPayouts
 * with its cursor and the payments each payout covered, getPayout, and getSettlementBalances from the ledger.
 */
import assert from 'node:assert/strict';
import { createApp, type Runtime } from '@paygate/server';
import { insertPayout } from '../../server/src/db/queries/payoutRows.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { testRuntime } from '../helpers/runtime.js';

const CHAIN = 'eip155:8453';
const USDC = `${CHAIN}/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913`;

describeEachDatabase('settlement.merchantApi', (get) => {
  let runtime: Runtime;
  let server: Listening;
  let account: MerchantAccount;
  const payouts: string[] = [];
  const payments: string[] = [];

  before(async () => {
    runtime = await testRuntime({ db: get().db });
    server = await listen(createApp({ runtime, validateResponses: true }));
    account = await createMerchantAccount(runtime);
    for (let i = 0; i < 3; i++) {
      const p = await createPayment(runtime, {
        merchantId: account.merchantId,
        live: true,
        referenceId: `order-${i}`,
        amount: { unit: 'iso4217/USD', value: '100' },
        expiresAt: Date.now() + 3_600_000,
        successUrl: null,
        errorUrl: null,
      });
      payments.push(p.id);
    }
    // Three payouts, one a second apart, the first covering two payments.
    const cover = [[payments[0]!, payments[1]!], [payments[2]!], []];
    for (let i = 0; i < 3; i++) {
      const id = `po_${String(i).padStart(20, 'A')}`;
      await runtime.db.knex.transaction((trx) =>
        insertPayout(
          trx,
          {
            id,
            merchantId: account.merchantId,
            live: true,
            chain: CHAIN,
            asset: USDC,
            gross: 1_010_000n * BigInt(cover[i]!.length),
            fee: 10_000n * BigInt(cover[i]!.length),
            net: 1_000_000n * BigInt(cover[i]!.length),
            destination: '0x000000000000000000000000000000000000dEaD',
            treasury: null,
            state: 'planned',
            txId: null,
            createdAt: 1_000_000 + i * 1000,
            sentAt: null,
            finalAt: null,
          },
          cover[i]!.map((paymentId) => ({
            payoutId: id,
            paymentId,
            gross: 1_010_000n,
            fee: 10_000n,
            net: 1_000_000n,
          })),
        ),
      );
      payouts.push(id);
    }
    const entry = {
      merchantId: account.merchantId,
      live: true,
      mode: 'collected' as const,
      chain: CHAIN,
      asset: USDC,
      address: null,
      createdAt: 0,
    };
    await insertLedgerEntries(runtime.db.knex, [
      { ...entry, entryKey: 'payable:a', kind: 'payable', amount: 5_000_001n, paymentId: payments[0] },
      { ...entry, entryKey: 'paid_out:x', kind: 'paid_out', amount: 2_000_000n },
      { ...entry, entryKey: 'payable:test', kind: 'payable', amount: 7n, live: false },
    ]);
  });
  after(async () => {
    await server?.close();
    await runtime?.close();
  });

  const call = async (path: string, key = account.liveKey) => {
    const res = await fetch(`${server.url}${path}`, {
      headers: { 'Api-Key': key, 'Merchant-Id': account.merchantId },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('listPayouts: newest first, a page at a time through nextCursor, each with the payments it covered', async () => {
    const first = await call('/v1/merchant/payouts?limit=2');
    assert.equal(first.status, 200);
    const data = first.body.data as { payout_id: string; payments: { payment_id: string }[]; net: unknown }[];
    assert.deepEqual(
      data.map((p) => p.payout_id),
      [payouts[2], payouts[1]],
    );
    assert.equal(first.body.hasMore, true);
    assert.equal(first.body.nextCursor, payouts[1]);
    const second = await call(`/v1/merchant/payouts?limit=2&startingAfter=${payouts[1]}`);
    const last = (second.body.data as typeof data)[0]!;
    assert.equal(last.payout_id, payouts[0]);
    assert.deepEqual(last.payments.map((p) => p.payment_id).sort(), [payments[0], payments[1]].sort());
    assert.deepEqual(last.net, { unit: `caip19/${USDC}`, value: '2000000' });
    assert.equal(second.body.hasMore, false);
    assert.equal(second.body.nextCursor, null);
  });

  it('listPayouts: a test key sees no live payout', async () => {
    const res = await call('/v1/merchant/payouts', account.testKey);
    assert.deepEqual(res.body.data, []);
  });

  it('getPayout: the payout; an unknown id or the other mode is 404 invalid_params', async () => {
    const ok = await call(`/v1/merchant/payouts/${payouts[1]}`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.state, 'planned');
    assert.deepEqual(
      (ok.body.payments as { payment_id: string }[]).map((p) => p.payment_id),
      [payments[2]],
    );
    for (const [id, key] of [
      ['po_nothingHere0000000', account.liveKey],
      [payouts[1]!, account.testKey],
    ] as const) {
      const missing = await call(`/v1/merchant/payouts/${id}`, key);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'invalid_params');
    }
    const cursor = await call('/v1/merchant/payouts?startingAfter=po_nothingHere0000000');
    assert.equal(cursor.status, 404);
    assert.equal(cursor.body.code, 'invalid_params');
  });

  it('getSettlementBalances: payable minus paid out, per chain and asset, of the key’s mode', async () => {
    const live = await call('/v1/merchant/settlements');
    assert.equal(live.status, 200);
    assert.deepEqual(live.body.data, [{ chain_caip2: CHAIN, unpaid: { unit: `caip19/${USDC}`, value: '3000001' } }]);
    const test = await call('/v1/merchant/settlements', account.testKey);
    assert.deepEqual(test.body.data, [{ chain_caip2: CHAIN, unpaid: { unit: `caip19/${USDC}`, value: '7' } }]);
  });
});
