/**
 * `paygate_holdTransactions` on the local Solana endpoint: while held, sendTransaction answers with the signature
 * (after the usual preflight) but the transaction never lands; once its blockhash has expired, re-sending it is
 * refused. This is how tests model "broadcast, but never landed before the blockhash expired".
 */
import assert from 'node:assert/strict';
import {
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  getBase64Decoder,
  getBase64Encoder,
  isSolanaError,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  fundedWallet,
  localSolanaRpc,
  preflightFailureCause,
  rawSolanaRpc,
  sharedLocalSolana,
  signedTransaction,
  useReleasedTransactions,
} from '../helpers/solana.js';

describe('local Solana RPC: held transactions', function () {
  useReleasedTransactions();
  let payer: KeyPairSigner;
  let recipient: KeyPairSigner;
  let amount = 1_000n;

  before(async function () {
    payer = await fundedWallet();
    recipient = await fundedWallet({ lamports: 1_000_000n });
  });

  async function transfer() {
    return signedTransaction(payer, [
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: amount++ }),
    ]);
  }

  async function balance(): Promise<bigint> {
    return (await (await localSolanaRpc()).getBalance(recipient.address).send()).value;
  }

  it('accepts a transaction while held and never lands it, even after the hold ends', async function () {
    const rpc = await localSolanaRpc();
    const before = await balance();
    assert.deepEqual(await rawSolanaRpc('paygate_holdTransactions', [true]), { jsonrpc: '2.0', result: true, id: 1 });
    const tx = await transfer();
    const signature = await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
    assert.equal(signature, tx.signature);
    assert.deepEqual((await rpc.getSignatureStatuses([signature]).send()).value, [null]);
    assert.equal(
      // eslint-disable-next-line no-restricted-syntax -- a held transaction is absent: a wait cannot show absence
      await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send(),
      null,
    );
    assert.equal(await balance(), before);

    assert.equal((await rawSolanaRpc('paygate_holdTransactions', [false])).result, false);
    assert.deepEqual((await rpc.getSignatureStatuses([signature]).send()).value, [null]);
    assert.equal(await balance(), before);

    // Past its last valid block height the blockhash is gone, so the transaction can never land.
    const height = await rpc.getBlockHeight().send();
    await rawSolanaRpc('paygate_warpSlots', [Number(tx.lastValidBlockHeight - height) + 1]);
    await assert.rejects(rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send(), (err: unknown) =>
      isSolanaError(preflightFailureCause(err), SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND),
    );
    assert.deepEqual((await rpc.getSignatureStatuses([signature]).send()).value, [null]);
    assert.equal(await balance(), before);
  });

  it('still runs preflight while held', async function () {
    const rpc = await localSolanaRpc();
    (await sharedLocalSolana()).test.holdTransactions(true);
    const tx = await transfer();
    const bytes = new Uint8Array(getBase64Encoder().encode(tx.wire));
    bytes[5]! ^= 0x01;
    await assert.rejects(
      rpc
        .sendTransaction(getBase64Decoder().decode(bytes) as Base64EncodedWireTransaction, { encoding: 'base64' })
        .send(),
      (err: unknown) =>
        isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE),
    );
  });

  it('lands a dropped transaction that is sent again after the hold, before its blockhash expires', async function () {
    const chain = await sharedLocalSolana();
    const rpc = await localSolanaRpc();
    const before = await balance();
    chain.test.holdTransactions(true);
    const tx = await transfer();
    await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
    chain.test.holdTransactions(false);
    await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
    assert.equal((await rpc.getSignatureStatuses([tx.signature]).send()).value[0]?.err, null);
    assert.equal(await balance(), before + amount - 1n);
  });

  it('keeps the faucet working while transactions are held', async function () {
    const chain = await sharedLocalSolana();
    const rpc = await localSolanaRpc();
    chain.test.holdTransactions(true);
    const before = await balance();
    await rpc.requestAirdrop(recipient.address, 5n as never).send();
    await chain.faucet.mintTokens(recipient.address, chain.mints.tusd.address, 7n);
    assert.equal(await balance(), before + 5n);
  });
});
