/**
 * A refund's network fee end to end on the run's anvil (docs/decisions.md §22.13): the merchant is charged it with
 * the refund, the payout pays the merchant that much less, the fee stays in the collection account as the
 * operator's, and reconciliation finds the collection account exactly as the ledger says; a refund that fails gives
 * its fee back with its reservation.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { EvmMoveDetails } from '../../server/src/chains/eip155/moves.js';
import { listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { MOVE_SEND_RETRY_MS } from '../../server/src/settlement/moves.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { claimRefund, refundPayment } from '../../server/src/settlement/refunds.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { paidDeposit, refundDeps, startCollectedHarness, type CollectedHarness } from './collected.js';

const FEE = 250_000n;

describeEachDatabase('settlement.refund.networkFee', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  afterEach(async () => {
    await h.close();
  });

  /** Runs the jobs, mining a block a round, until the row of a move is in `state`. */
  async function moveReaches(table: string, id: string, state: string): Promise<void> {
    await h.until(`${table} ${id} ${state}`, async () => {
      await h.local.test.mine({ blocks: state === 'final' ? 64 : 1 });
      const row = (await h.runtime.db.knex(table).where({ id }).first()) as { state: string };
      return row.state === state;
    });
  }

  it('refund, then payout: the merchant is paid its payable less the refund and its fee; the fee stays in the collection and reconciles', async () => {
    h = await startCollectedHarness(get().db, { PAYGATE_REFUND_NETWORK_FEE: '0.25', PAYGATE_REFUND_MINIMUM: '1' });
    const d = await paidDeposit(h, 10_000_000n, 100_000n);
    const [sweep] = await planSweeps(h.checkout);
    await moveReaches('sweeps', sweep!, 'final');
    const port = h.checkout.adapters.find((a) => a.namespace === 'eip155')!.settlement!;
    const collection = await port.keyAddress(h.chain, { role: 'collection' });
    assert.equal(await h.balance(collection), 10_000_000n);

    const deps = refundDeps(h);
    const scope = { merchantId: h.merchantId, live: true };
    const { body } = await refundPayment(deps, scope, d.paymentId, { amount: '4000000' });
    assert.equal(body.refund!.network_fee?.value, FEE.toString());
    const buyer = getAddress(`0x${randomBytes(20).toString('hex')}`);
    await claimRefund(deps, new URL(body.refund!.claim_url!).hash.slice(1), buyer);
    await moveReaches('onchain_refunds', body.refund!.refund_id, 'final');

    const [payoutId] = await planPayouts(h.checkout);
    const payout = (await h.runtime.db.knex('payouts').where({ id: payoutId }).first()) as Record<string, string>;
    assert.deepEqual([payout.net, payout.fee], [String(9_900_000n - 4_000_000n - FEE), '100000']);
    await moveReaches('payouts', payoutId!, 'final');

    assert.equal(await h.balance(buyer), 4_000_000n);
    assert.equal(await h.balance(h.payoutAddress), 9_900_000n - 4_000_000n - FEE);
    assert.equal(await h.balance(collection), FEE, "the refund's network fee stays, the operator's");
    assert.equal((await unpaidBalances(h.runtime.db.knex, scope))[0]?.amount ?? 0n, 0n, 'nothing owed, nothing below');
    const result = await h.runtime.reconciler!.run();
    assert.deepEqual(
      result.differences.filter((x) => x.chain === h.chain),
      [],
      'the ledger and the chain agree on the deposit, the collection and the treasury',
    );
    assert.ok(result.checked.some((c) => c.chain === h.chain && c.asset === h.tusd && c.role === 'collection'));
  });

  it('a refund that fails (the collection holds nothing) gives its network fee back with its reservation, once', async () => {
    h = await startCollectedHarness(get().db, { PAYGATE_REFUND_NETWORK_FEE: '0.25', PAYGATE_REFUND_MINIMUM: '1' });
    const d = await paidDeposit(h, 3_000_000n, 0n);
    const deps = refundDeps(h);
    const scope = { merchantId: h.merchantId, live: true };
    const unpaid = async () => (await unpaidBalances(h.runtime.db.knex, scope))[0]?.amount ?? 0n;
    const { body } = await refundPayment(deps, scope, d.paymentId, { amount: '1000000' });
    const refundId = body.refund!.refund_id;
    await claimRefund(deps, new URL(body.refund!.claim_url!).hash.slice(1), getAddress(`0x${'6'.repeat(40)}`));
    assert.equal(await unpaid(), 2_000_000n - FEE, 'the refund and its fee are reserved');

    // Its deposit transfer left the chain (a reorganisation, written here): no sweep is waited for (a refund waits for
    // its payment's funds to be swept, §22.12) and the collection account holds none of it, so every send is refused;
    // after the retries and the authorization's deadline it fails.
    await h.runtime.db.knex('deposit_transfers').where({ payment_id: d.paymentId }).update({ state: 'reorged' });
    await h.drain();
    for (const delay of MOVE_SEND_RETRY_MS) {
      h.clock.advance(delay);
      await h.drain();
    }
    const row = (await h.runtime.db.knex('onchain_refunds').where({ id: refundId }).first()) as {
      details: string | EvmMoveDetails;
    };
    const details = (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as EvmMoveDetails;
    const latest = await h.local.clients.public.getBlock({ blockTag: 'latest' });
    const wait = BigInt(details.validBefore!) - latest.timestamp;
    if (wait > 0n) await h.local.test.increaseTime({ seconds: Number(wait) });
    await moveReaches('onchain_refunds', refundId, 'failed');

    assert.equal(await unpaid(), 3_000_000n, "the amount and the fee are the merchant's again");
    const released = await listLedgerEntries(h.runtime.db.knex, {
      paymentId: d.paymentId,
      kinds: ['refund_released', 'refund_fee_released'],
    });
    assert.deepEqual(released.map((e) => [e.entryKey, e.amount]).sort(), [
      [`refund_fee_released:${refundId}`, FEE],
      [`refund_released:${refundId}`, 1_000_000n],
    ]);
  });
});
