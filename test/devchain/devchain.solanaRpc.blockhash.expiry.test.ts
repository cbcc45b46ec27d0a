/**
 * Blockhash lifetime on the local Solana endpoint: a blockhash handed out by getLatestBlockhash stays usable up to its
 * lastValidBlockHeight (150 blocks later) and is then expired in LiteSVM, which refuses transactions that use it;
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

  /** A distinct small SOL transfer each time, signed with the latest blockhash. */
  async function transfer() {
    return signedTransaction(payer, [
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: amount++ }),
    ]);
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

  it('gives a fresh blockhash 150 blocks, accepts it up to its last valid height and refuses it after', async function () {
    const rpc = await localSolanaRpc();
    await rawSolanaRpc('paygate_expireBlockhash');
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const height = await rpc.getBlockHeight().send();
    const left = lifetime.lastValidBlockHeight - height;
    assert.ok(left >= 148n && left <= 150n, `${left} blocks left`);
    // Later callers get the same blockhash with the same last valid height.
    assert.deepEqual((await rpc.getLatestBlockhash().send()).value, lifetime);

    const early = await transfer();
    const late = await transfer();
    assert.equal(early.lastValidBlockHeight, lifetime.lastValidBlockHeight);
    // Five blocks (2 s) short of the end, since the wall clock keeps adding slots meanwhile.
    const { result: warpedTo } = await rawSolanaRpc('paygate_warpSlots', [Number(left) - 5]);
    assert.equal(typeof warpedTo, 'number');
    assert.equal((await rpc.isBlockhashValid(lifetime.blockhash).send()).value, true);
    await rpc.sendTransaction(early.wire, { encoding: 'base64' }).send();
    assert.equal((await rpc.getSignatureStatuses([early.signature]).send()).value[0]?.err, null);

    await rawSolanaRpc('paygate_warpSlots', [6]);
    assert.ok((await rpc.getBlockHeight().send()) > lifetime.lastValidBlockHeight);
    assert.equal((await rpc.isBlockhashValid(lifetime.blockhash).send()).value, false);
    assert.equal(await refusedForBlockhash(late.wire), true);
    const simulated = await rpc.simulateTransaction(late.wire, { encoding: 'base64' }).send();
    assert.equal(simulated.value.err, 'BlockhashNotFound');

    const { value: next } = await rpc.getLatestBlockhash().send();
    assert.notEqual(next.blockhash, lifetime.blockhash);
    assert.ok(next.lastValidBlockHeight > lifetime.lastValidBlockHeight + 2n);
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
