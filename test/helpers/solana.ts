/**
 * The run's one local Solana chain (LiteSVM behind its JSON-RPC endpoint), the same one the gateway tests use:
 * started with anvil on first use and stopped by the global teardown in test/setup.ts. Tests talk to it with
 * @solana/kit, as the gateway does; its `paygate_*` controls change the shared clock, so a test that holds
 * transactions releases them afterwards (`useReleasedTransactions()`).
 */
import {
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionSigner,
} from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { LocalSolanaChain } from '@paygate/devchain';
import { sharedChains } from './chain.js';

/** The run's local chains' Solana chain (test/helpers/chain.ts starts both, once per run, on first use). */
export async function sharedLocalSolana(): Promise<LocalSolanaChain> {
  return (await sharedChains()).local!.solana;
}

/** The full Solana API, airdrops included: a plain URL leaves kit unsure which cluster it is. */
export type SolanaRpc = Rpc<SolanaRpcApi>;

export async function localSolanaRpc(): Promise<SolanaRpc> {
  return createSolanaRpc((await sharedLocalSolana()).rpcUrl) as SolanaRpc;
}

/** Raw JSON-RPC, for the local-only controls and the protocol itself. */
export async function rawSolanaRpc(method: string, params: unknown[] = []): Promise<Record<string, unknown>> {
  const res = await fetch((await sharedLocalSolana()).rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** Releases held transactions after each test of the suite, so one test's hold never drops another's. */
export function useReleasedTransactions(): void {
  afterEach(async () => {
    (await sharedLocalSolana()).test.holdTransactions(false);
  });
}

/** A fresh wallet with SOL (and TUSD, when asked) from the faucet. */
export async function fundedWallet(options: { lamports?: bigint; tusd?: bigint } = {}): Promise<KeyPairSigner> {
  const chain = await sharedLocalSolana();
  const wallet = await generateKeyPairSigner();
  await chain.faucet.airdropSol(wallet.address, options.lamports ?? 1_000_000_000n);
  if (options.tusd) await chain.faucet.mintTokens(wallet.address, chain.mints.tusd.address, options.tusd);
  return wallet;
}

export async function tusdAccount(owner: Address): Promise<Address> {
  const chain = await sharedLocalSolana();
  const [ata] = await findAssociatedTokenPda({
    owner,
    mint: chain.mints.tusd.address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return ata;
}

export interface SignedTransaction {
  wire: Base64EncodedWireTransaction;
  signature: Signature;
  lastValidBlockHeight: bigint;
}

export type BlockhashLifetime = Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0];

/** A v0 transaction with the endpoint's latest blockhash (or the one given), signed by every signer it names. */
export async function signedTransaction(
  feePayer: TransactionSigner,
  instructions: Instruction[],
  given?: BlockhashLifetime,
): Promise<SignedTransaction> {
  const rpc = await localSolanaRpc();
  const lifetime = given ?? (await rpc.getLatestBlockhash().send()).value;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return {
    wire: getBase64EncodedWireTransaction(signed),
    signature: getSignatureFromTransaction(signed),
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
  };
}

/** The transaction error that kit attached to a preflight failure (-32002), if `err` is one. */
export function preflightFailureCause(err: unknown): unknown {
  return isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)
    ? err.cause
    : undefined;
}
