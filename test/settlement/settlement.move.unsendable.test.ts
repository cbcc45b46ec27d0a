/**
 * A move that can never be sent (settlement/moves.ts, MOVE_SEND_RETRY_MS): the ledger expects funds the chain does
 * not hold, so every gas estimate of the move reverts. After its attempts, on the business clock, the move is given
 * up on, but gives back nothing while its signed authorizations could still execute (docs/decisions.md §22.11): only
 * once the finalized block's time passed their `validBefore` does it end `failed`, give its transfers (or a refund's
 * reservation) back once, count in `paygate_settlement_moves_failed_total`, with nothing moved on chain and the old
 * authorization refused. An authorization that executed meanwhile (submitted by the test, as anyone could) makes the
 * move final instead, and nothing is planned again.
 */
import assert from 'node:assert/strict';
import { getAddress, parseAbi, parseSignature, type Address, type Hex } from 'viem';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import { MOVE_AUTHORIZATION_WINDOW_S, type EvmMoveDetails } from '../../server/src/chains/eip155/moves.js';
import { listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { MOVE_SEND_RETRY_MS, runMove } from '../../server/src/settlement/moves.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { claimRefund, refundPayment } from '../../server/src/settlement/refunds.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { receiptOf } from '../helpers/wait.js';
import { paidDeposit, refundDeps, startCollectedHarness, type CollectedHarness } from './collected.js';

type MoveTable = 'sweeps' | 'payouts' | 'onchain_refunds';

describeEachDatabase('settlement.move.unsendable', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  beforeEach(async () => {
    h = await startCollectedHarness(get().db);
  });
  afterEach(async () => {
    await h.close();
  });

  const moveRow = async (table: MoveTable, id: string) => {
    const row = (await h.runtime.db.knex(table).where({ id }).first()) as {
      state: string;
      tx_id: string | null;
      details: string | Record<string, unknown>;
    };
    const details = (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as EvmMoveDetails;
    return { state: row.state, txId: row.tx_id, details };
  };
  const sweepRow = (id: string) => moveRow('sweeps', id);
  const sweptTransfers = async (id: string) =>
    ((await h.runtime.db.knex('sweep_transfers').where({ sweep_id: id })) as unknown[]).length;
  /** The sweeps covering a payment's deposit transfers (a file's PostgreSQL database outlives its tests). */
  const sweepsCovering = async (paymentId: string) =>
    (
      (await h.runtime.db
        .knex('sweep_transfers')
        .join('deposit_transfers', 'deposit_transfers.id', 'sweep_transfers.transfer_id')
        .where('deposit_transfers.payment_id', paymentId)
        .select('sweep_transfers.sweep_id')) as { sweep_id: string }[]
    ).map((r) => r.sweep_id);
  const failedMetric = () =>
    h.runtime.metrics.registry.getSingleMetricAsString('paygate_settlement_moves_failed_total');

  /** Runs the move's first attempt and its retries on the business clock: it stays planned through all of them. */
  async function exhaustSends(table: MoveTable, id: string): Promise<void> {
    await h.drain();
    assert.equal((await moveRow(table, id)).state, 'planned', 'the first attempt failed; the move waits');
    for (const [i, delay] of MOVE_SEND_RETRY_MS.entries()) {
      h.clock.advance(delay - 1);
      await h.drain();
      assert.equal((await moveRow(table, id)).state, 'planned', `attempt ${i + 2} waits its delay`);
      h.clock.advance(1);
      await h.drain();
    }
  }

  /** Checks rounds of the given-up move while the chain's finalized time is before `validBefore`: nothing changes. */
  async function staysGivenUp(table: MoveTable, id: string): Promise<void> {
    await h.local.test.mine({ blocks: 65 });
    for (let i = 0; i < 3; i++) {
      h.clock.advance(600_000);
      await h.drain();
      assert.equal((await moveRow(table, id)).state, 'planned', 'not given back while its authorizations are valid');
    }
  }

  /** Moves the chain's time to the authorizations' deadline and makes a block at it final. */
  async function passValidBefore(details: EvmMoveDetails): Promise<void> {
    const latest = await h.local.clients.public.getBlock({ blockTag: 'latest' });
    const wait = BigInt(details.validBefore!) - latest.timestamp;
    if (wait > 0n) await h.local.test.increaseTime({ seconds: Number(wait) });
    await h.local.test.mine({ blocks: 65 });
  }

  /** Submits a stored leg's authorization as anyone could: the faucet's wallet pays the gas. */
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

  it('a sweep of funds the chain lacks: kept until its authorizations expire, then failed, given back once, counted', async () => {
    const d = await paidDeposit(h, 1_000_000n, 0n);
    // The ledger and the detection record twice what the deposit holds on chain.
    await h.runtime.db.knex('deposit_transfers').where({ payment_id: d.paymentId }).update({ amount: '2000000' });
    const [sweep] = await planSweeps(h.checkout);
    assert.equal(await sweptTransfers(sweep!), 1);

    await exhaustSends('sweeps', sweep!);
    const givenUp = await sweepRow(sweep!);
    assert.equal(givenUp.state, 'planned', 'given up on, but not failed while its authorization can execute');
    assert.equal(await sweptTransfers(sweep!), 1, 'its transfers are not given back yet');
    const signedAt = await h.local.clients.public.getBlock({ blockTag: 'latest' });
    const validBefore = BigInt(givenUp.details.validBefore!);
    assert.ok(validBefore > signedAt.timestamp, 'the authorization has a deadline ahead');
    assert.ok(validBefore <= signedAt.timestamp + MOVE_AUTHORIZATION_WINDOW_S, 'bounded by the window');
    assert.deepEqual(await planSweeps(h.checkout), [], 'its transfer is not planned twice');
    await staysGivenUp('sweeps', sweep!);

    await passValidBefore(givenUp.details);
    const failed = await h.until('the sweep fails', async () => {
      const row = await sweepRow(sweep!);
      return row.state === 'failed' && row;
    });
    assert.equal(failed.txId, null);
    assert.equal(await sweptTransfers(sweep!), 0, 'its transfers are given back');
    assert.equal(await h.balance(d.address), 1_000_000n, 'nothing moved');
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] })).length, 0);
    assert.match(await failedMetric(), /kind="sweep",reason="unsendable"} 1\n?$/m);

    // The old authorization can no longer be submitted, even once the deposit holds what it names.
    await receiptOf(h.local.clients.public, await h.local.fund.mintTestUsd(d.address, 1_000_000n));
    await assert.rejects(
      h.local.clients.public.simulateContract({
        account: h.local.faucet.account,
        address: givenUp.details.token,
        abi: [...eip3009Abi, ...parseAbi(['error AuthorizationExpired(uint256 validBefore)'])],
        functionName: 'transferWithAuthorization',
        args: (() => {
          const leg = givenUp.details.legs[0]!;
          const { r, s, v, yParity } = parseSignature(leg.signature);
          return [
            leg.from,
            leg.to,
            BigInt(leg.value),
            0n,
            validBefore,
            leg.nonce,
            Number(v ?? BigInt(yParity + 27)),
            r,
            s,
          ] as const;
        })(),
      }),
      /AuthorizationExpired/,
    );

    // Once: a later run of the failed move changes nothing, and the transfer is planned again exactly once.
    await runMove(h.checkout, 'sweep', sweep!);
    assert.equal((await sweepRow(sweep!)).state, 'failed');
    const again = await planSweeps(h.checkout);
    assert.equal(again.length, 1);
    assert.equal(await sweptTransfers(again[0]!), 1);
    assert.deepEqual(await planSweeps(h.checkout), []);
    assert.match(await failedMetric(), /reason="unsendable"} 1\n?$/m, 'counted once');
  });

  it('a given-up sweep whose authorization executed meanwhile ends final, not given back, and is not planned again', async () => {
    const d = await paidDeposit(h, 1_000_000n, 0n);
    await h.runtime.db.knex('deposit_transfers').where({ payment_id: d.paymentId }).update({ amount: '2000000' });
    const [sweep] = await planSweeps(h.checkout);
    await exhaustSends('sweeps', sweep!);
    const givenUp = await sweepRow(sweep!);
    assert.equal(givenUp.state, 'planned');

    // The funds arrive, and someone submits the signed authorization (it is valid until its deadline).
    await receiptOf(h.local.clients.public, await h.local.fund.mintTestUsd(d.address, 1_000_000n));
    const leg = givenUp.details.legs[0]!;
    const used = await receiptOf(h.local.clients.public, await submitLeg(givenUp.details, leg));
    assert.equal(used.status, 'success');

    await passValidBefore(givenUp.details);
    const final = await h.until('the sweep is final', async () => {
      const row = await sweepRow(sweep!);
      return row.state === 'final' && row;
    });
    assert.equal(final.txId, used.transactionHash, "the transaction that used the authorization is the move's");
    assert.equal(await sweptTransfers(sweep!), 1, 'nothing given back');
    const swept = await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] });
    assert.deepEqual(
      swept.map((e) => [e.amount, getAddress(e.address!)]),
      [[2_000_000n, d.address]],
    );
    assert.equal(await h.balance(d.address), 0n);
    assert.equal(await h.balance(getAddress(leg.to) as Address), 2_000_000n);
    await planSweeps(h.checkout);
    assert.deepEqual(await sweepsCovering(d.paymentId), [sweep], 'no second sweep of the same funds');
  });

  it('a refund the collection account cannot pay: its reservation is given back once, after its authorization expired', async () => {
    const d = await paidDeposit(h, 3_000_000n, 0n);
    const deps = refundDeps(h);
    const scope = { merchantId: h.merchantId, live: true };
    const unpaid = async () => (await unpaidBalances(h.runtime.db.knex, scope))[0]?.amount ?? 0n;
    const answer = await refundPayment(deps, scope, d.paymentId, { amount: '1000000' });
    const refund = answer.body.refund!;
    assert.equal(await unpaid(), 2_000_000n, 'the refund reserves its amount');
    if (refund.state === 'awaiting_claim') {
      // A plain transfer's refund goes through its claim link: the buyer names an address.
      await claimRefund(deps, new URL(refund.claim_url!).hash.slice(1), getAddress(`0x${'5'.repeat(40)}`));
    }
    // Its deposit transfer left the chain (a reorganisation, written here): no sweep is waited for (a refund waits for
    // its payment's funds to be swept, §22.12) and the collection account holds none of it, so every send is refused.
    await h.runtime.db.knex('deposit_transfers').where({ payment_id: d.paymentId }).update({ state: 'reorged' });
    await exhaustSends('onchain_refunds', refund.refund_id);
    await staysGivenUp('onchain_refunds', refund.refund_id);
    assert.equal(await unpaid(), 2_000_000n, 'still reserved while it could execute');

    await passValidBefore((await moveRow('onchain_refunds', refund.refund_id)).details);
    await h.until(
      'the refund fails',
      async () => (await moveRow('onchain_refunds', refund.refund_id)).state === 'failed',
    );
    assert.equal(await unpaid(), 3_000_000n, 'its reservation is given back');
    const released = await listLedgerEntries(h.runtime.db.knex, { paymentId: d.paymentId, kinds: ['refund_released'] });
    assert.deepEqual(
      released.map((e) => [e.entryKey, e.amount]),
      [[`refund_released:${refund.refund_id}`, 1_000_000n]],
    );
    await runMove(h.checkout, 'refund', refund.refund_id);
    assert.equal(await unpaid(), 3_000_000n, 'given back once');
    const payment = (await h.runtime.db.knex('payments').where({ id: d.paymentId }).first()) as { refunded: string };
    const record = (typeof payment.refunded === 'string' ? JSON.parse(payment.refunded) : payment.refunded) as {
      refunds: { refund_id: string; state: string }[];
    };
    assert.equal(record.refunds.find((r) => r.refund_id === refund.refund_id)?.state, 'failed');
    assert.match(await failedMetric(), /kind="refund",reason="unsendable"} 1\n?$/m);
  });

  it('a payout the collection account cannot pay: its reservation is voided once when it fails, and the payment is planned again', async () => {
    // Earlier tests' deposits went with their chain snapshot: out of this test's sweep and payout.
    await h.runtime.db.knex('deposit_transfers').update({ state: 'reorged' });
    const d = await paidDeposit(h, 3_000_000n, 0n);
    const [sweep] = await planSweeps(h.checkout);
    await h.local.test.mine({ blocks: 1 });
    await h.until('the sweep sent', async () => (await sweepRow(sweep!)).state !== 'planned');
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await sweepRow(sweep!)).state === 'final');
    const scope = { merchantId: h.merchantId, live: true };
    const unpaid = async () => (await unpaidBalances(h.runtime.db.knex, scope))[0]?.amount ?? 0n;
    const [payout] = await planPayouts(h.checkout);
    assert.equal(await unpaid(), 0n, 'reserved when planned');
    // The move asks for more than the collection account holds: every send is refused.
    await h.runtime.db.knex('payouts').where({ id: payout }).update({ net: '3000000000000' });
    await exhaustSends('payouts', payout!);
    await staysGivenUp('payouts', payout!);
    assert.equal(await unpaid(), 0n, 'still reserved while it could execute');

    await passValidBefore((await moveRow('payouts', payout!)).details);
    await h.until('the payout fails', async () => (await moveRow('payouts', payout!)).state === 'failed');
    assert.equal(await unpaid(), 3_000_000n, 'its reservation is voided');
    const released = await listLedgerEntries(h.runtime.db.knex, { payoutId: payout!, kinds: ['payout_released'] });
    assert.deepEqual(
      released.map((e) => [e.entryKey, e.amount]),
      [[`payout_released:${payout}`, 3_000_000n]],
    );
    await runMove(h.checkout, 'payout', payout!);
    assert.equal(await unpaid(), 3_000_000n, 'voided once');
    const [again] = await planPayouts(h.checkout);
    const items = (await h.runtime.db.knex('payout_items').where({ payout_id: again })) as { payment_id: string }[];
    assert.deepEqual(
      items.map((i) => i.payment_id),
      [d.paymentId],
    );
  });
});
