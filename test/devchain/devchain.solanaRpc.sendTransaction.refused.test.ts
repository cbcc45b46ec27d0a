/**
 * sendTransaction refusals on the local Solana endpoint, as @solana/kit reports them: signatures that do not verify
 * (-32003), preflight failures with the runtime's error (-32002 with the transaction error as cause), duplicates,
 * and what skipPreflight lets through: a failing instruction lands with its error and fee, a bad signature never
 * lands.
 */
import assert from 'node:assert/strict';
import {
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  generateKeyPairSigner,
  getBase64Decoder,
  getBase64Encoder,
  isSolanaError,
  signBytes,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import {
  fundedWallet,
  localSolanaRpc,
  preflightFailureCause,
  rawSolanaRpc,
  sharedLocalSolana,
  signedTransaction,
  tusdAccount,
} from '../helpers/solana.js';
import { solanaTransactionOf } from '../helpers/wait.js';

/** The wire transaction with one bit of its first signature flipped. */
function corruptSignature(wire: Base64EncodedWireTransaction): Base64EncodedWireTransaction {
  const bytes = new Uint8Array(getBase64Encoder().encode(wire));
  bytes[10]! ^= 0x01;
  return getBase64Decoder().decode(bytes) as Base64EncodedWireTransaction;
}

describe('local Solana RPC: sendTransaction refusals', function () {
  let payer: KeyPairSigner;
  let recipient: KeyPairSigner;

  before(async function () {
    payer = await fundedWallet({ lamports: 1_000_000_000n, tusd: 1_000_000n });
    recipient = await fundedWallet({ tusd: 1n });
  });

  async function tokenTransfer(amount: bigint) {
    const chain = await sharedLocalSolana();
    return signedTransaction(chain.feePayer, [
      getTransferCheckedInstruction({
        source: await tusdAccount(payer.address),
        mint: chain.mints.tusd.address,
        destination: await tusdAccount(recipient.address),
        authority: payer,
        amount,
        decimals: 6,
      }),
    ]);
  }

  async function tokenBalance(owner: KeyPairSigner): Promise<string> {
    const rpc = await localSolanaRpc();
    return (await rpc.getTokenAccountBalance(await tusdAccount(owner.address)).send()).value.amount;
  }

  it('refuses a transaction whose signature does not verify, and it never lands', async function () {
    const rpc = await localSolanaRpc();
    const tx = await tokenTransfer(1n);
    const bad = corruptSignature(tx.wire);
    await assert.rejects(rpc.sendTransaction(bad, { encoding: 'base64' }).send(), (err: unknown) =>
      isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE),
    );
    // Without preflight the node takes it, but the runtime's signature check drops it.
    const signature = await rpc.sendTransaction(bad, { encoding: 'base64', skipPreflight: true }).send();
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    assert.deepEqual(value, [null]);
    assert.equal(await tokenBalance(payer), '1000000');
  });

  it('refuses a transaction signed by the wrong key or missing a signature', async function () {
    const chain = await sharedLocalSolana();
    const rpc = await localSolanaRpc();
    const impostor = await generateKeyPairSigner();
    // The fee payer's slot carries a valid signature of the message, by another key.
    const tx = await signedTransaction(chain.feePayer, [
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n }),
    ]);
    const bytes = new Uint8Array(getBase64Encoder().encode(tx.wire));
    const messageStart = 1 + 64 * bytes[0]!;
    bytes.set(await signBytes(impostor.keyPair.privateKey, bytes.subarray(messageStart)), 1);
    await assert.rejects(
      rpc
        .sendTransaction(getBase64Decoder().decode(bytes) as Base64EncodedWireTransaction, { encoding: 'base64' })
        .send(),
      (err: unknown) =>
        isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE),
    );
    // The token owner's signature left out (all zeros).
    bytes.fill(0, 65, 129);
    await assert.rejects(
      rpc
        .sendTransaction(getBase64Decoder().decode(bytes) as Base64EncodedWireTransaction, { encoding: 'base64' })
        .send(),
      (err: unknown) =>
        isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_TRANSACTION_SIGNATURE_VERIFICATION_FAILURE),
    );
  });

  it('refuses in preflight a transfer beyond the balance, with the token program error as cause', async function () {
    const rpc = await localSolanaRpc();
    const tx = await tokenTransfer(2_000_000n);
    const err = await rpc
      .sendTransaction(tx.wire, { encoding: 'base64' })
      .send()
      .then(
        () => assert.fail('sent'),
        (e: unknown) => e,
      );
    assert.ok(isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE));
    assert.ok(Array.isArray(err.context.logs) && err.context.logs.length > 0);
    const cause = preflightFailureCause(err);
    // SPL Token's error 1 is InsufficientFunds, raised by instruction 0.
    assert.ok(isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM));
    assert.equal(cause.context.code, 1);
    assert.equal(cause.context.index, 0);
    const raw = await rawSolanaRpc('sendTransaction', [tx.wire, { encoding: 'base64' }]);
    const error = raw.error as { code: number; message: string; data: { err: unknown } };
    assert.equal(error.code, -32002);
    assert.equal(
      error.message,
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    assert.deepEqual(error.data.err, { InstructionError: [0, { Custom: 1 }] });
    const { value } = await rpc.getSignatureStatuses([tx.signature]).send();
    assert.deepEqual(value, [null]);
  });

  it('lands a failing transaction sent with skipPreflight: its error recorded and its fee charged', async function () {
    const chain = await sharedLocalSolana();
    const rpc = await localSolanaRpc();
    const tx = await tokenTransfer(2_000_000n);
    const before = (await rpc.getBalance(chain.feePayer.address).send()).value;
    const signature = await rpc.sendTransaction(tx.wire, { encoding: 'base64', skipPreflight: true }).send();
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    // kit reads every integer of a response as a bigint.
    assert.deepEqual(value[0]?.err, { InstructionError: [0n, { Custom: 1n }] });
    assert.deepEqual(value[0]?.status, { Err: { InstructionError: [0n, { Custom: 1n }] } });
    assert.equal(before - (await rpc.getBalance(chain.feePayer.address).send()).value, 10_000n);
    assert.equal(await tokenBalance(payer), '1000000');
    const landed = await solanaTransactionOf(rpc, signature);
    assert.deepEqual(landed?.meta?.err, { InstructionError: [0n, { Custom: 1n }] });
  });

  it('refuses a transaction that already landed', async function () {
    const rpc = await localSolanaRpc();
    const tx = await tokenTransfer(10n);
    await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
    const err = await rpc
      .sendTransaction(tx.wire, { encoding: 'base64' })
      .send()
      .then(
        () => assert.fail('sent twice'),
        (e: unknown) => e,
      );
    assert.ok(isSolanaError(preflightFailureCause(err), SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED));
    assert.equal(await tokenBalance(payer), '999990');
  });

  it('refuses a fee payer that never received SOL', async function () {
    const rpc = await localSolanaRpc();
    const broke = await generateKeyPairSigner();
    const tx = await signedTransaction(broke, [
      getTransferSolInstruction({ source: broke, destination: recipient.address, amount: 1n }),
    ]);
    const err = await rpc
      .sendTransaction(tx.wire, { encoding: 'base64' })
      .send()
      .then(
        () => assert.fail('sent'),
        (e: unknown) => e,
      );
    assert.ok(isSolanaError(preflightFailureCause(err), SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND));
  });

  it('refuses what is not a transaction with -32602', async function () {
    const rpc = await localSolanaRpc();
    for (const wire of ['not base64!', 'AAAA', 'A'.repeat(2000)]) {
      await assert.rejects(
        rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64' }).send(),
        (err: unknown) => isSolanaError(err, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS),
      );
    }
  });
});
