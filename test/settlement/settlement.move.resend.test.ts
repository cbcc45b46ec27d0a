/**
 * The EVM mover's repairs (chains/eip155/moves.ts through settlement/moves.ts): a dropped transaction is sent again
 * with the same authorizations, a repeated send after a lost answer sends nothing, and a re-prepare uses the same
 * nonces.
 */
import assert from 'node:assert/strict';
import { parseEventLogs, type Hex } from 'viem';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import type { EvmMoveDetails } from '../../server/src/chains/eip155/moves.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { moverOf } from '../../server/src/settlement/moves.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { receiptOf, transactionOf } from '../helpers/wait.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness } from './collected.js';

interface SweepRow {
  state: string;
  tx_id: string | null;
  details: string;
}

describeEachDatabase('settlement.move.resend', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  beforeEach(async () => {
    h = await startCollectedHarness(get().db);
  });
  afterEach(async () => {
    await h.local.test.setAutomine(true);
    await h.close();
  });

  const sweepRow = async (id: string) => (await h.runtime.db.knex('sweeps').where({ id }).first()) as SweepRow;

  it('settlement.move: a dropped transaction is sent again with the same authorizations, which are used once', async () => {
    const a = await paidDeposit(h, 2_000_000n, 0n);
    const b = await paidDeposit(h, 500_000n, 0n);
    const collection = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'collection' });
    const before = await h.balance(collection);
    const [sweep] = await planSweeps(h.checkout);

    await h.local.test.setAutomine(false);
    const dropped = await h.until('the sweep sent', async () => (await sweepRow(sweep!)).tx_id);
    await transactionOf(h.local.clients.public, dropped as Hex);
    await h.local.test.dropTransaction({ hash: dropped as Hex });
    await h.local.test.setAutomine(true);
    // Nothing mines it now: only a resend can. The resend is byte-identical when the relayer's nonce and the fees
    // are (the same authorizations, deterministically signed), so it is recognised by landing, not by a new hash.
    const resent = await h.until('the sweep landed after the drop', async () => {
      const uses = await h.local.clients.public.getContractEvents({
        address: h.local.testUsd,
        abi: eip3009Abi,
        eventName: 'AuthorizationUsed',
        args: { authorizer: [a.address, b.address] },
      });
      return uses.length === 2 ? (await sweepRow(sweep!)).tx_id : null;
    });
    const receipt = await receiptOf(h.local.clients.public, resent as Hex);
    assert.equal(receipt.status, 'success');
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await sweepRow(sweep!)).state === 'final');

    const details = JSON.parse((await sweepRow(sweep!)).details) as EvmMoveDetails;
    const sent = await transactionOf(h.local.clients.public, resent as Hex);
    for (const leg of details.legs) assert.ok(sent.input.includes(leg.signature.slice(2, 66)), 'the same signature');
    const uses = await h.local.clients.public.getContractEvents({
      address: h.local.testUsd,
      abi: eip3009Abi,
      eventName: 'AuthorizationUsed',
      fromBlock: BigInt(details.fromBlock),
    });
    const ours = uses.filter((u) => details.legs.some((l) => l.nonce === u.args.nonce));
    assert.equal(ours.length, 2, 'each authorization used once');
    assert.ok(ours.every((u) => u.transactionHash === resent));
    assert.equal((await h.balance(collection)) - before, a.amount + b.amount);
  });

  it('MoveSender: a later re-prepare signs a later deadline under the same nonces; a send after a lost answer sends nothing new', async () => {
    const a = await paidDeposit(h, 3_000_000n, 0n);
    const mover = moverOf(h.checkout, h.chain);
    const collection = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'collection' });
    const move = {
      id: 'swp_portlevel0000000001',
      chain: h.chain,
      asset: h.tusd,
      legs: [{ from: { role: 'deposit' as const, index: a.derivationIndex }, to: collection, amount: a.amount }],
    };
    const first = (await mover.prepare(move)) as unknown as EvmMoveDetails;
    assert.deepEqual((await mover.prepare(move)) as unknown as EvmMoveDetails, first, 'same chain time, same bytes');
    await h.local.test.increaseTime({ seconds: 10 });
    await h.local.test.mine({ blocks: 1 });
    // Later on the chain: another deadline, so other signatures; the nonces, which the token uses once, are the same.
    const again = (await mover.prepare(move)) as unknown as EvmMoveDetails;
    assert.ok(BigInt(again.validBefore!) > BigInt(first.validBefore!));
    assert.deepEqual(
      again.legs.map((l) => l.nonce),
      first.legs.map((l) => l.nonce),
    );
    assert.notEqual(again.legs[0]!.signature, first.legs[0]!.signature);

    const { txId } = await mover.send(move, first as unknown as Record<string, unknown>);
    const receipt = await receiptOf(h.local.clients.public, txId as Hex);
    assert.equal(parseEventLogs({ abi: eip3009Abi, eventName: 'AuthorizationUsed', logs: receipt.logs }).length, 1);
    const relayer = h.local.clients.relayer.account.address;
    const nonce = await h.local.clients.public.getTransactionCount({ address: relayer });
    // The answer was lost: the same send again finds the leg used and answers the transaction that used it.
    const repeat = await mover.send(move, again as unknown as Record<string, unknown>);
    assert.equal(repeat.txId, txId);
    assert.equal(await h.local.clients.public.getTransactionCount({ address: relayer }), nonce, 'nothing sent');
    assert.equal(await h.balance(a.address), 0n);
  });

  it('MoveSender.prepare: an asset without EIP-3009 is refused', async () => {
    const native = h.local.config.assets.find((x) => x.address === null)!;
    const mover = moverOf(h.checkout, h.chain);
    await assert.rejects(
      mover.prepare({
        id: 'swp_native000000000001',
        chain: h.chain,
        asset: native.caip19,
        legs: [{ from: { role: 'collection' }, to: h.payoutAddress, amount: 1n }],
      }),
      /no EIP-3009/,
    );
  });
});
