/**
 * A payout given up on (settlement/moves.ts, docs/decisions.md §22.11) whose signed authorization someone submitted
 * before it expired: the executor finds it used once the authorization can no longer execute, and completes the
 * payout as final (its payment settled once) instead of giving it back, so no second payout is planned. Its own file:
 * a file's database outlives its tests, and planPayouts would pay out other tests' swept payments.
 */
import assert from 'node:assert/strict';
import { parseSignature, type Address, type Hex } from 'viem';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import type { EvmMoveDetails } from '../../server/src/chains/eip155/moves.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { MOVE_SEND_RETRY_MS } from '../../server/src/settlement/moves.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { receiptOf } from '../helpers/wait.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness } from './collected.js';

describeEachDatabase('settlement.move.executedLate', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  beforeEach(async () => {
    h = await startCollectedHarness(get().db);
  });
  afterEach(async () => {
    await h.close();
  });

  const moveRow = async (table: 'sweeps' | 'payouts', id: string) => {
    const row = (await h.runtime.db.knex(table).where({ id }).first()) as {
      state: string;
      tx_id: string | null;
      details: string | Record<string, unknown>;
    };
    const details = (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as EvmMoveDetails;
    return { state: row.state, txId: row.tx_id, details };
  };
  const sweepRow = (id: string) => moveRow('sweeps', id);

  async function exhaustSends(table: 'payouts', id: string): Promise<void> {
    await h.drain();
    for (const delay of MOVE_SEND_RETRY_MS) {
      assert.equal((await moveRow(table, id)).state, 'planned');
      h.clock.advance(delay);
      await h.drain();
    }
  }

  async function passValidBefore(details: EvmMoveDetails): Promise<void> {
    const latest = await h.local.clients.public.getBlock({ blockTag: 'latest' });
    const wait = BigInt(details.validBefore!) - latest.timestamp;
    if (wait > 0n) await h.local.test.increaseTime({ seconds: Number(wait) });
    await h.local.test.mine({ blocks: 65 });
  }

  async function submitLeg(details: EvmMoveDetails, leg: EvmMoveDetails['legs'][number]): Promise<Hex> {
    const { r, s, v, yParity } = parseSignature(leg.signature);
    return h.local.faucet.writeContract({
      address: details.token,
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [
        leg.from,
        leg.to,
        BigInt(leg.value),
        0n,
        BigInt(details.validBefore!),
        leg.nonce,
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    });
  }

  it('a given-up payout whose authorization executed meanwhile ends final, settles its payment once, and no second payout is planned', async () => {
    const d = await paidDeposit(h, 1_000_000n, 0n);
    const [sweep] = await planSweeps(h.checkout);
    await h.local.test.mine({ blocks: 1 });
    await h.until('the sweep sent', async () => (await sweepRow(sweep!)).state !== 'planned');
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await sweepRow(sweep!)).state === 'final');
    const collection = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'collection' });
    // The books owe the merchant 1 TUSD more than the collection account holds: every send is refused.
    const owed = (await h.balance(collection)) + 1_000_000n;
    await h.runtime.db
      .knex('ledger_entries')
      .where({ entry_key: `payable:${d.paymentId}` })
      .update({ amount: owed.toString() });
    const [payout, ...others] = await planPayouts(h.checkout);
    assert.deepEqual(others, []);
    await exhaustSends('payouts', payout!);
    const givenUp = await moveRow('payouts', payout!);
    assert.equal(givenUp.state, 'planned', 'given up on, not failed');
    assert.deepEqual(await planPayouts(h.checkout), [], 'its payment is not paid out twice meanwhile');

    await receiptOf(h.local.clients.public, await h.local.fund.mintTestUsd(collection as Address, 1_000_000n));
    const used = await receiptOf(h.local.clients.public, await submitLeg(givenUp.details, givenUp.details.legs[0]!));
    assert.equal(used.status, 'success');
    await passValidBefore(givenUp.details);
    const final = await h.until('the payout is final', async () => {
      const row = await moveRow('payouts', payout!);
      return row.state === 'final' && row;
    });
    assert.equal(final.txId, used.transactionHash);
    assert.equal(await h.balance(h.payoutAddress), owed, 'paid once');
    const items = (await h.runtime.db.knex('payout_items').where({ payout_id: payout })) as unknown[];
    assert.equal(items.length, 1, 'its payment stays covered');
    assert.deepEqual(await planPayouts(h.checkout), [], 'no second payout');
    const settled = (await h.runtime.db
      .knex('events')
      .where({ type: 'payment.settled', payment_id: d.paymentId })) as unknown[];
    assert.equal(settled.length, 1, 'payment.settled once');
    const paid = await listLedgerEntries(h.runtime.db.knex, { kinds: ['paid_out'] });
    assert.deepEqual(
      paid.filter((e) => e.payoutId === payout).map((e) => e.amount),
      [owed],
    );
  });
});
