/**
 * Moves on Solana (docs/decisions.md §22.5) against the local chain, through the settlement port
 * (`createSolanaSettlement(...).mover`): the chain's fee payer pays, the legs' settlement keys sign, a prepared
 * transaction lands at most once however often it is sent, an expired one is prepared again, a failing one is
 * `failed` with nothing moved; a move given up on is `ended`: live while it could land, dead or executed after.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import type { Move, MoveProgress, MoveSender } from '../../server/src/chains/adapter.js';
import type { SolanaChain } from '../../server/src/chains/solana/client.js';
import { createSolanaSettlement, type SolanaSettlement } from '../../server/src/chains/solana/settlement.js';
import { sharedChains } from '../helpers/chain.js';
import { sharedLocalSolana, useReleasedTransactions } from '../helpers/solana.js';
import { eventually } from '../helpers/wait.js';

describe('settlement on Solana: moves', () => {
  let chain: SolanaChain;
  let settlement: SolanaSettlement;
  let mover: MoveSender;
  let tusd: Address;
  let asset: string;
  let caip2: string;
  let nextIndex = 1;
  useReleasedTransactions();

  before(async () => {
    chain = (await sharedChains()).solana[0]!;
    settlement = createSolanaSettlement([chain], randomBytes(64));
    mover = settlement.mover!;
    tusd = (await sharedLocalSolana()).mints.tusd.address;
    caip2 = chain.config.caip2;
    asset = `${caip2}/token:${tusd}`;
  });

  const balance = (address: string) => settlement.balance(caip2, asset, address);

  /** A deposit holding `amount` TUSD (minted into its token account, as a payment would have left it). */
  async function deposit(amount: bigint) {
    const index = nextIndex++;
    const address = await settlement.keyAddress(caip2, { role: 'deposit', index });
    await (await sharedLocalSolana()).faucet.mintTokens(address as Address, tusd, amount);
    await eventually(`deposit ${index} to hold ${amount}`, async () => (await balance(address)) === amount);
    return { index, address };
  }

  /** What the move's row holds: the details as JSON, written before anything is sent. */
  async function prepared(move: Move): Promise<Record<string, unknown>> {
    return JSON.parse(JSON.stringify(await mover.prepare(move))) as Record<string, unknown>;
  }

  async function progressUntil(move: Move, details: Record<string, unknown>, state: MoveProgress['state']) {
    return eventually(`move ${move.id} to be ${state}`, async () => {
      const progress = await mover.progress(move, details, null);
      return progress.state === state && progress;
    });
  }

  /** Moves the chain past finality (32 slots) of everything that landed so far. */
  async function finalize() {
    (await sharedLocalSolana()).test.warpSlots(33n);
  }

  it('prepare/send/progress: a payout of two legs lands once although sent again, and is final after 32 slots', async () => {
    const collection = await settlement.keyAddress(caip2, { role: 'collection' });
    await (await sharedLocalSolana()).faucet.mintTokens(collection as Address, tusd, 10_000_000n);
    const start = await eventually('the collection funded', async () => {
      const held = await balance(collection);
      return held >= 10_000_000n && held;
    });
    // Neither has a token account yet: the fee payer creates both.
    const [merchant, treasury] = [(await generateKeyPairSigner()).address, (await generateKeyPairSigner()).address];
    const move: Move = {
      id: 'po_solana_two_legs',
      chain: caip2,
      asset,
      legs: [
        { from: { role: 'collection' }, to: merchant, amount: 7_250_000n },
        { from: { role: 'collection' }, to: treasury, amount: 250_000n },
      ],
    };
    const details = await prepared(move);
    assert.match(String(details.lastValidBlockHeight), /^\d+$/);
    const first = await mover.send(move, details);
    const again = await mover.send(move, details);
    assert.equal(first.txId, details.signature);
    assert.equal(again.txId, first.txId);

    const landed = await progressUntil(move, details, 'pending');
    assert.deepEqual(landed, { state: 'pending', recheckInMs: 2_000, txId: first.txId });
    await eventually('the payout to land', async () => (await balance(merchant)) === 7_250_000n);
    assert.equal(await balance(treasury), 250_000n);
    assert.equal(await balance(collection), start - 7_500_000n);

    await finalize();
    assert.deepEqual(await progressUntil(move, details, 'final'), { state: 'final', txId: first.txId });
    // Sent once more after finality: the same transaction, nothing moves again.
    assert.equal((await mover.send(move, details)).txId, first.txId);
    assert.equal(await balance(merchant), 7_250_000n);
    assert.equal(await balance(collection), start - 7_500_000n);
  });

  it('progress: a sweep that never landed expires once its last valid height is final; prepared again it lands once', async () => {
    const local = await sharedLocalSolana();
    const rpc = chain.rpc;
    const from = await deposit(10_000_000n);
    const collection = await settlement.keyAddress(caip2, { role: 'collection' });
    const collected = await balance(collection);
    const move: Move = {
      id: 'swp_solana_expired',
      chain: caip2,
      asset,
      legs: [{ from: { role: 'deposit', index: from.index }, to: collection, amount: 4_000_000n }],
    };
    const lost = await prepared(move);
    // The node answers the signature and drops the transaction (a lost broadcast).
    local.test.holdTransactions(true);
    assert.equal((await mover.send(move, lost)).txId, lost.signature);
    local.test.holdTransactions(false);
    assert.equal((await mover.progress(move, lost, null)).state, 'pending');

    // Past its last valid height, and that height final (32 slots deeper).
    const height = await rpc.getBlockHeight({ commitment: 'confirmed' }).send();
    local.test.warpSlots(BigInt(lost.lastValidBlockHeight as string) - height + 1n + 33n);
    await progressUntil(move, lost, 'expired');
    // The old bytes can never land any more, whoever sends them.
    await mover.send(move, lost);
    assert.deepEqual(await mover.progress(move, lost, null), { state: 'expired' });
    assert.equal(await balance(from.address), 10_000_000n);

    const fresh = await prepared(move);
    assert.notEqual(fresh.signature, lost.signature);
    await mover.send(move, fresh);
    await mover.send(move, fresh);
    await progressUntil(move, fresh, 'pending');
    await finalize();
    await progressUntil(move, fresh, 'final');
    assert.equal(await balance(from.address), 6_000_000n);
    assert.equal(await balance(collection), collected + 4_000_000n);
    // The fee payer paid: the deposit key never held SOL.
    assert.equal(await settlement.balance(caip2, `${caip2}/slip44:501`, from.address), 0n);
  });

  it('progress: a sweep of more than the deposit holds lands with its error, is failed once final, and moves nothing', async () => {
    const from = await deposit(1_000_000n);
    const collection = await settlement.keyAddress(caip2, { role: 'collection' });
    const collected = await balance(collection);
    const move: Move = {
      id: 'swp_solana_short',
      chain: caip2,
      asset,
      legs: [{ from: { role: 'deposit', index: from.index }, to: collection, amount: 2_000_000n }],
    };
    const details = await prepared(move);
    await mover.send(move, details);
    // Landed with its error, not yet final: it stays pending, since a rolled-back landing could still land again.
    await progressUntil(move, details, 'pending');
    await finalize();
    const failed = await progressUntil(move, details, 'failed');
    assert.match(failed.state === 'failed' ? failed.reason : '', /landed with an error.*InstructionError/);
    assert.equal(await balance(from.address), 1_000_000n);
    assert.equal(await balance(collection), collected);
  });

  it('ended: a given-up sweep is live until its last valid height is final, then dead with nothing moved; a landed one is executed once final', async () => {
    const local = await sharedLocalSolana();
    const from = await deposit(10_000_000n);
    const collection = await settlement.keyAddress(caip2, { role: 'collection' });
    const collected = await balance(collection);
    const move: Move = {
      id: 'swp_solana_given_up',
      chain: caip2,
      asset,
      legs: [{ from: { role: 'deposit', index: from.index }, to: collection, amount: 3_000_000n }],
    };
    const lost = await prepared(move);
    local.test.holdTransactions(true);
    await mover.send(move, lost);
    local.test.holdTransactions(false);
    assert.deepEqual(await mover.ended(move, lost, null), { state: 'live', recheckInMs: 2_000 });

    const height = await chain.rpc.getBlockHeight({ commitment: 'confirmed' }).send();
    local.test.warpSlots(BigInt(lost.lastValidBlockHeight as string) - height + 1n + 33n);
    await eventually('the lost sweep to be dead', async () => (await mover.ended(move, lost, null)).state === 'dead');
    assert.equal(await balance(from.address), 10_000_000n, 'nothing moved');

    const landed = await prepared(move);
    await mover.send(move, landed);
    await progressUntil(move, landed, 'pending');
    assert.equal((await mover.ended(move, landed, null)).state, 'live', 'landed, not final yet');
    await finalize();
    assert.deepEqual(
      await eventually('the landed sweep to be executed', async () => {
        const end = await mover.ended(move, landed, null);
        return end.state === 'executed' && end;
      }),
      { state: 'executed', txId: landed.signature },
    );
    assert.equal(await balance(collection), collected + 3_000_000n);
  });

  it('prepare: refuses SOL, an asset of no configured chain, a move without legs and a leg of no amount', async () => {
    const to = (await generateKeyPairSigner()).address;
    const leg = { from: { role: 'collection' as const }, to, amount: 1n };
    const base = { id: 'po_refused', chain: caip2, asset, legs: [leg] };
    await assert.rejects(mover.prepare({ ...base, asset: `${caip2}/slip44:501` }), /only SPL tokens/);
    await assert.rejects(mover.prepare({ ...base, asset: `${caip2}/token:${to}` }), /is not an asset of/);
    await assert.rejects(mover.prepare({ ...base, legs: [] }), /has no legs/);
    await assert.rejects(mover.prepare({ ...base, legs: [{ ...leg, amount: 0n }] }), /must be positive/);
    await assert.rejects(mover.send(base, { transaction: 'AA==' }), /not a prepared Solana transaction/);
  });
});
