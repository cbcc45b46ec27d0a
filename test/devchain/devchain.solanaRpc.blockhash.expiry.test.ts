/**
 * Blockhash lifetime on the local Solana endpoint: each slot's caller gets a blockhash with 150 blocks of life, usable
 * up to its lastValidBlockHeight and refused after, while those handed out earlier keep their own;
 * `paygate_expireBlockhash` and `paygate_warpSlots` drive the same state from tests.
 */
import assert from 'node:assert/strict';
import {
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  appendTransactionMessageInstructions,
  compileTransactionMessage,
  createTransactionMessage,
  getBase64Decoder,
  getCompiledTransactionMessageEncoder,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type KeyPairSigner,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  fundedWallet,
  localSolanaRpc,
  preflightFailureCause,
  rawSolanaRpc,
  sharedLocalSolana,
  signedTransaction,
  type BlockhashLifetime,
} from '../helpers/solana.js';

describe('local Solana RPC: blockhash expiry', function () {
  let payer: KeyPairSigner;
  let recipient: KeyPairSigner;
  let amount = 1n;

  before(async function () {
    payer = await fundedWallet();
    // Funded, so that a few lamports more keep it rent-exempt (the runtime refuses a transfer that would not).
    recipient = await fundedWallet({ lamports: 1_000_000n });
  });

  /** A distinct small SOL transfer each time, signed with the latest blockhash or the one given. */
  async function transfer(lifetime?: BlockhashLifetime) {
    return signedTransaction(
      payer,
      [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: amount++ })],
      lifetime,
    );
  }

  async function refusedForBlockhash(wire: string): Promise<boolean> {
    const rpc = await localSolanaRpc();
    return rpc
      .sendTransaction(wire as never, { encoding: 'base64' })
      .send()
      .then(
        () => false,
        (err: unknown) =>
          isSolanaError(preflightFailureCause(err), SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND),
      );
  }

  it('gives a caller in a later slot a fresh blockhash of 150 blocks; an earlier one lands up to its last valid height, not after', async function () {
    const rpc = await localSolanaRpc();
    const { value: first } = await rpc.getLatestBlockhash().send();
    const left = first.lastValidBlockHeight - (await rpc.getBlockHeight().send());
    assert.ok(left >= 148n && left <= 150n, `${left} blocks left`);
    const early = await transfer(first);
    const lateInFirst = await transfer(first);

    // Ten slots later, so that the second outlives the first by more than the wall clock adds during the test.
    await rawSolanaRpc('paygate_warpSlots', [10]);
    const { value: second } = await rpc.getLatestBlockhash().send();
    assert.notEqual(second.blockhash, first.blockhash);
    const secondLeft = second.lastValidBlockHeight - (await rpc.getBlockHeight().send());
    assert.ok(secondLeft >= 148n && secondLeft <= 150n, `${secondLeft} blocks left`);
    const inSecond = await transfer(second);

    // Five blocks (2 s) short of the first's end, since the wall clock keeps adding slots meanwhile.
    await rawSolanaRpc('paygate_warpSlots', [
      Number(first.lastValidBlockHeight - (await rpc.getBlockHeight().send())) - 5,
    ]);
    assert.equal((await rpc.isBlockhashValid(first.blockhash).send()).value, true);
    await rpc.sendTransaction(early.wire, { encoding: 'base64' }).send();
    assert.equal((await rpc.getSignatureStatuses([early.signature]).send()).value[0]?.err, null);

    await rawSolanaRpc('paygate_warpSlots', [6]);
    const height = await rpc.getBlockHeight().send();
    assert.ok(height > first.lastValidBlockHeight && height <= second.lastValidBlockHeight, `${height}`);
    assert.equal((await rpc.isBlockhashValid(first.blockhash).send()).value, false);
    assert.equal(await refusedForBlockhash(lateInFirst.wire), true);
    const simulated = await rpc.simulateTransaction(lateInFirst.wire, { encoding: 'base64' }).send();
    assert.equal(simulated.value.err, 'BlockhashNotFound');
    // The blockhash handed out a slot later still has its own life left.
    assert.equal((await rpc.isBlockhashValid(second.blockhash).send()).value, true);
    await rpc.sendTransaction(inSecond.wire, { encoding: 'base64' }).send();
    assert.equal((await rpc.getSignatureStatuses([inSecond.signature]).send()).value[0]?.err, null);
  });

  it('gives callers within one slot the same blockhash and last valid height', async function () {
    // The wall clock may cross a slot boundary between two calls; within one slot both answers are equal.
    const pairs: [BlockhashLifetime, BlockhashLifetime, bigint, bigint][] = [];
    for (let i = 0; i < 5; i++) {
      const rpc = await localSolanaRpc();
      const before = await rpc.getBlockHeight().send();
      const a = (await rpc.getLatestBlockhash().send()).value;
      const b = (await rpc.getLatestBlockhash().send()).value;
      const after = await rpc.getBlockHeight().send();
      pairs.push([a, b, before, after]);
    }
    const sameSlot = pairs.filter(([, , before, after]) => before === after);
    assert.ok(sameSlot.length > 0, 'the slot moved during every pair');
    for (const [a, b] of sameSlot) assert.deepEqual(b, a);
  });

  it('expires the current blockhash at once with paygate_expireBlockhash', async function () {
    const rpc = await localSolanaRpc();
    const tx = await transfer();
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const { result: expired } = await rawSolanaRpc('paygate_expireBlockhash');
    assert.equal(expired, lifetime.blockhash);
    assert.equal((await rpc.isBlockhashValid(lifetime.blockhash).send()).value, false);
    assert.equal(await refusedForBlockhash(tx.wire), true);
    // simulateTransaction can still try it under the current blockhash, as Agave's replaceRecentBlockhash does.
    const replaced = await rpc
      .simulateTransaction(tx.wire, { encoding: 'base64', replaceRecentBlockhash: true })
      .send();
    assert.equal(replaced.value.err, null);
    assert.notEqual(replaced.value.replacementBlockhash?.blockhash, lifetime.blockhash);
    assert.ok(replaced.value.unitsConsumed !== undefined && replaced.value.unitsConsumed > 0n);
  });

  it('quotes no fee for a message whose blockhash expired', async function () {
    const chain = await sharedLocalSolana();
    const rpc = await localSolanaRpc();
    const message = (blockhash: string, lastValidBlockHeight: bigint) =>
      getBase64Decoder().decode(
        getCompiledTransactionMessageEncoder().encode(
          compileTransactionMessage(
            pipe(
              createTransactionMessage({ version: 0 }),
              (m) => setTransactionMessageFeePayerSigner(chain.feePayer, m),
              (m) =>
                setTransactionMessageLifetimeUsingBlockhash(
                  { blockhash: blockhash as Blockhash, lastValidBlockHeight },
                  m,
                ),
              (m) =>
                appendTransactionMessageInstructions(
                  [getTransferSolInstruction({ source: chain.feePayer, destination: payer.address, amount: 1n })],
                  m,
                ),
            ),
          ),
        ),
      ) as TransactionMessageBytesBase64;
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    assert.equal(
      (await rpc.getFeeForMessage(message(lifetime.blockhash, lifetime.lastValidBlockHeight)).send()).value,
      5_000n,
    );
    chain.test.expireBlockhash();
    assert.equal(
      (await rpc.getFeeForMessage(message(lifetime.blockhash, lifetime.lastValidBlockHeight)).send()).value,
      null,
    );
  });

  it('refuses warps that are not a positive slot count', async function () {
    for (const params of [[0], [-1], ['ten'], []]) {
      const { error } = await rawSolanaRpc('paygate_warpSlots', params);
      assert.equal((error as { code: number }).code, -32602, JSON.stringify(params));
    }
  });
});
