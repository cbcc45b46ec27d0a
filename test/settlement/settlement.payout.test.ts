/**
 * Payouts (settlement/payouts.ts + the executor): the swept payments of a merchant are paid out in one transaction,
 * Σ payable to the merchant and Σ fee to the treasury, exactly, and every payment settles with the payout's
 * transaction only once it is final.
 */
import assert from 'node:assert/strict';
import { planPayouts, payoutMinimumUnits } from '../../server/src/settlement/payouts.js';
import { listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness, type PaidDeposit } from './collected.js';

interface EventRow {
  payment_id: string;
  type: string;
  payload: string;
}

describeEachDatabase('settlement.payout', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  afterEach(async () => {
    await h.close();
  });

  async function sweptDeposits(amounts: [bigint, bigint][]): Promise<PaidDeposit[]> {
    const deposits: PaidDeposit[] = [];
    for (const [amount, fee] of amounts) deposits.push(await paidDeposit(h, amount, fee));
    const [sweep] = await planSweeps(h.checkout);
    await h.local.test.mine({ blocks: 1 });
    await h.until('the sweep sent', async () => {
      const row = (await h.runtime.db.knex('sweeps').where({ id: sweep }).first()) as { state: string };
      return row.state !== 'planned';
    });
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => {
      const row = (await h.runtime.db.knex('sweeps').where({ id: sweep }).first()) as { state: string };
      return row.state === 'final';
    });
    return deposits;
  }

  const settledEvents = async () =>
    ((await h.runtime.db.knex('events').where({ type: 'payment.settled' }).select()) as EventRow[]).map((e) => ({
      paymentId: e.payment_id,
      settled: (JSON.parse(e.payload) as { data: { settled: Record<string, unknown> } }).data.settled,
    }));

  it('planPayouts + settlement.move: one payout of three payments, net and fee exact on chain, settled at finality', async () => {
    h = await startCollectedHarness(get().db);
    const deposits = await sweptDeposits([
      [1_250_000n, 12_500n],
      [3_000_001n, 30_001n],
      [7n, 0n],
    ]);
    const net = deposits.reduce((s, d) => s + d.payable, 0n);
    const fee = deposits.reduce((s, d) => s + d.fee, 0n);
    assert.equal(net, 4_207_507n);
    assert.equal(fee, 42_501n);
    const treasury = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'devTreasury' });
    const treasuryBefore = await h.balance(treasury);

    const [payoutId, ...more] = await planPayouts(h.checkout);
    assert.equal(more.length, 0, 'one payout per merchant, chain and asset');
    assert.deepEqual(await planPayouts(h.checkout), [], 'a payment is paid out once');
    const payout = (await h.runtime.db.knex('payouts').where({ id: payoutId }).first()) as Record<string, string>;
    assert.deepEqual([payout.gross, payout.fee, payout.net], [String(net + fee), String(fee), String(net)]);
    const items = (await h.runtime.db.knex('payout_items').where({ payout_id: payoutId })) as unknown[];
    assert.equal(items.length, 3);

    const txId = await h.until('the payout sent', async () => {
      const row = (await h.runtime.db.knex('payouts').where({ id: payoutId }).first()) as Record<string, string>;
      return row.state === 'sent' ? row.tx_id : null;
    });
    assert.equal(await h.balance(h.payoutAddress), net);
    assert.equal((await h.balance(treasury)) - treasuryBefore, fee);

    // Not final yet: no payment settles, nothing is paid out in the ledger.
    await h.drain();
    assert.deepEqual(await settledEvents(), []);
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { kinds: ['paid_out'] })).length, 0);
    const [reserved] = await unpaidBalances(h.runtime.db.knex, { merchantId: h.merchantId, live: true });
    assert.equal(reserved!.amount, 0n, 'reserved from the moment it was planned: nothing left to refund');

    await h.local.test.mine({ blocks: 64 });
    await h.until('the payout final', async () => {
      const row = (await h.runtime.db.knex('payouts').where({ id: payoutId }).first()) as Record<string, string>;
      return row.state === 'final';
    });
    const events = await settledEvents();
    assert.deepEqual(events.map((e) => e.paymentId).sort(), deposits.map((d) => d.paymentId).sort());
    for (const d of deposits) {
      const { settled } = events.find((e) => e.paymentId === d.paymentId)!;
      assert.equal(settled.tx_id, txId);
      assert.deepEqual(settled.settlement_amount, { unit: `caip19/${h.tusd}`, value: d.payable.toString() });
    }
    const ledger = await listLedgerEntries(h.runtime.db.knex, { payoutId });
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.amount, e.address]).sort(),
      [
        ['fee_paid', fee, treasury],
        ['paid_out', net, h.payoutAddress],
        // The reservation planning wrote, posted once at finality.
        ['payout_reserved', net, h.payoutAddress],
        ['payout_released', net, h.payoutAddress],
      ].sort(),
    );
    const [balance] = await unpaidBalances(h.runtime.db.knex, { merchantId: h.merchantId, live: true });
    assert.equal(balance!.amount, 0n);
    // Settled once: a repeat of the job changes nothing.
    await h.drain();
    assert.equal((await settledEvents()).length, 3);
  });

  it('planPayouts: a balance below PAYGATE_PAYOUT_MINIMUM waits; payments not yet swept wait', async () => {
    h = await startCollectedHarness(get().db, { PAYGATE_PAYOUT_MINIMUM: '5' });
    await sweptDeposits([[4_999_999n, 0n]]);
    assert.deepEqual(await planPayouts(h.checkout), [], '4.999999 TUSD is below 5');
    // Funds at a deposit not swept yet are not paid out, even though they would reach the minimum.
    await paidDeposit(h, 1n, 0n);
    assert.deepEqual(await planPayouts(h.checkout), []);
  });
});

describe('settlement.payout minimum', () => {
  it('payoutMinimumUnits: whole units to minor units exactly; extra fraction digits round up, never down', () => {
    assert.equal(payoutMinimumUnits('10', 6), 10_000_000n);
    assert.equal(payoutMinimumUnits('0.000001', 6), 1n);
    assert.equal(payoutMinimumUnits('0.0000011', 6), 2n);
    assert.equal(payoutMinimumUnits('1.5', 0), 2n);
    assert.equal(
      payoutMinimumUnits('123456789012345678.123456789012345678', 18),
      123456789012345678123456789012345678n,
    );
  });
});
