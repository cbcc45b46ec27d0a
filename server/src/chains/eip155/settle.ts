/**
 * After confirm: the relayer submits authorizations, and every claim is watched until its transfer is buried under
 * the chain's required confirmations. Success is decided by what the chain shows, never by our own transaction:
 * an authorization counts once `AuthorizationUsed` and the matching `Transfer` are in a block at depth, whoever
 * submitted it (a front-runner included); a direct transfer counts once its receipt, re-read at depth, still holds
 * the `Transfer` (or the value) the option asked for. A replaced direct transaction is followed by sender and nonce.
 */
import {
  getAddress,
  parseEventLogs,
  parseSignature,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import type { Database } from '../../db/connect.js';
import { inRelayerTurn } from '../../db/queries/relayerNonces.js';
import type { ClaimProgress, ClaimRecord } from '../adapter.js';
import type { EvmChain } from '../index.js';
import { eip3009Abi, erc20Abi } from './abis.js';

export interface SettleOptions {
  /** How long a transaction may be missing from the chain (dropped, reorged out) before the payment fails. */
  droppedAfterMs: number;
  /** How often to look again while waiting for depth. */
  recheckMs: number;
}

export const DEFAULT_SETTLE_OPTIONS: SettleOptions = { droppedAfterMs: 10 * 60_000, recheckMs: 2_000 };

/** What confirm records in a gasless claim's details. */
interface AuthorizationDetails {
  token: Address;
  from: Address;
  to: Address;
  value: string;
  validBefore: string;
  nonce: Hex;
  signature: Hex;
  fromBlock: string;
}

/** Sends the buyer's authorization from the relayer, with a nonce no other relay (in any process) can take. */
export async function relayAuthorization(
  db: Database,
  chain: EvmChain,
  claim: ClaimRecord,
): Promise<{ txId: string | null }> {
  if (claim.txId) return { txId: claim.txId };
  const d = claim.details as unknown as AuthorizationDetails;
  const relayer = chain.clients.relayer.account.address;
  // Checked in turn, so a relay that waited behind others sees what they (or a front-runner) did meanwhile.
  return chain.clients.relayTurns.inTurn(`${chain.config.caip2}:${relayer}`, async () => {
    const used = await chain.clients.public.readContract({
      address: d.token,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [d.from, d.nonce],
    });
    // Someone submitted it first: nothing to send; the watch finds their transaction.
    if (used) return { txId: null };
    return relayUnderLock(db, chain, d, relayer, parseSignature(d.signature));
  });
}

async function relayUnderLock(
  db: Database,
  chain: EvmChain,
  d: AuthorizationDetails,
  relayer: Address,
  signature: ReturnType<typeof parseSignature>,
): Promise<{ txId: Hex }> {
  const { hash } = await inRelayerTurn(db, chain.config.caip2, relayer, () =>
    sendAuthorization(chain, d, relayer, signature),
  );
  return { txId: hash };
}

/** Sends `transferWithAuthorization` at the node's pending nonce; the caller holds the relayer's turn. */
async function sendAuthorization(
  chain: EvmChain,
  d: AuthorizationDetails,
  relayer: Address,
  { v, r, s, yParity }: ReturnType<typeof parseSignature>,
): Promise<{ nonce: bigint; hash: Hex }> {
  const nonce = BigInt(await chain.clients.public.getTransactionCount({ address: relayer, blockTag: 'pending' }));
  const hash = await chain.clients.relayer.writeContract({
    address: d.token,
    abi: eip3009Abi,
    functionName: 'transferWithAuthorization',
    args: [d.from, d.to, BigInt(d.value), 0n, BigInt(d.validBefore), d.nonce, Number(v ?? BigInt(yParity + 27)), r, s],
    nonce: Number(nonce),
  });
  return { nonce, hash };
}

async function receiptOrNull(chain: EvmChain, hash: Hex): Promise<TransactionReceipt | null> {
  try {
    return await chain.clients.public.getTransactionReceipt({ hash });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

async function transactionExists(chain: EvmChain, hash: Hex): Promise<boolean> {
  try {
    await chain.clients.public.getTransaction({ hash });
    return true;
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return false;
    throw err;
  }
}

/** The value of the token's `Transfer` logs from → to in the receipt. */
function transferredIn(receipt: TransactionReceipt, token: Address, from: Address, to: Address): bigint {
  const logs = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: false });
  return logs
    .filter(
      (l) =>
        getAddress(l.address) === token &&
        l.args.from !== undefined &&
        l.args.to !== undefined &&
        getAddress(l.args.from) === from &&
        getAddress(l.args.to) === to,
    )
    .reduce((sum, l) => sum + (l.args.value ?? 0n), 0n);
}

/**
 * Final once the receipt's block is `confirmations` deep and that block is still the one at its height: a reorg
 * that moved or dropped the transaction is seen here and the wait goes on (or ends as dropped).
 */
async function atDepth(
  chain: EvmChain,
  receipt: TransactionReceipt,
  options: SettleOptions,
): Promise<ClaimProgress | null> {
  const latest = await chain.clients.public.getBlockNumber({ cacheTime: 0 });
  const depth = latest - receipt.blockNumber + 1n;
  if (depth < BigInt(chain.config.confirmations)) {
    return { state: 'pending', recheckInMs: options.recheckMs, txId: receipt.transactionHash };
  }
  const again = await receiptOrNull(chain, receipt.transactionHash);
  const block = await chain.clients.public.getBlock({ blockNumber: receipt.blockNumber });
  if (!again || again.blockHash !== receipt.blockHash || block.hash !== receipt.blockHash) return null;
  return { state: 'succeeded', txId: receipt.transactionHash };
}

/** A transaction that is nowhere: waits `droppedAfterMs` from when it was first missed, then fails. */
function missing(claim: ClaimRecord, now: number, options: SettleOptions, what: string): ClaimProgress {
  const since = typeof claim.details.missingSince === 'number' ? claim.details.missingSince : now;
  if (now - since >= options.droppedAfterMs) return { state: 'failed', reason: `${what} was dropped from the chain.` };
  return { state: 'pending', recheckInMs: options.recheckMs, details: { ...claim.details, missingSince: since } };
}

function found(claim: ClaimRecord, progress: ClaimProgress): ClaimProgress {
  // Seen again after a reorg: the dropped-transaction clock starts over.
  if (progress.state === 'pending' && claim.details.missingSince !== undefined) {
    const { missingSince: _dropped, ...details } = claim.details;
    return { ...progress, details };
  }
  return progress;
}

export async function authorizationProgress(
  chain: EvmChain,
  claim: ClaimRecord,
  now: number,
  options: SettleOptions,
): Promise<ClaimProgress> {
  const d = claim.details as unknown as AuthorizationDetails;
  const publicClient = chain.clients.public;
  const uses = await publicClient.getContractEvents({
    address: d.token,
    abi: eip3009Abi,
    eventName: 'AuthorizationUsed',
    args: { authorizer: d.from, nonce: d.nonce },
    fromBlock: BigInt(d.fromBlock),
  });
  const use = uses.find((l) => !l.removed);
  if (!use) {
    if (claim.txId) {
      const ours = await receiptOrNull(chain, claim.txId as Hex);
      if (ours?.status === 'reverted')
        return { state: 'failed', reason: 'The authorization could not be used on chain.' };
      if (!ours && !(await transactionExists(chain, claim.txId as Hex))) {
        return missing(claim, now, options, `Relayed transaction ${claim.txId}`);
      }
    }
    if (Math.floor(now / 1000) >= Number(d.validBefore) && !claim.txId) {
      return { state: 'failed', reason: 'The authorization expired before it was used.' };
    }
    return { state: 'pending', recheckInMs: options.recheckMs };
  }
  const receipt = await receiptOrNull(chain, use.transactionHash);
  if (!receipt) return { state: 'pending', recheckInMs: options.recheckMs };
  const moved = transferredIn(receipt, d.token, d.from, d.to);
  if (receipt.status !== 'success' || moved < BigInt(d.value)) {
    return {
      state: 'failed',
      reason: 'The authorization was used without the expected transfer.',
      txId: use.transactionHash,
    };
  }
  return found(claim, (await atDepth(chain, receipt, options)) ?? { state: 'pending', recheckInMs: options.recheckMs });
}

/**
 * A relayed transaction that no endpoint knows, on a second look, while the authorization is unused and valid: every
 * endpoint lost it (one accepted the send and dropped it, the others did not take it), and nothing would ever mine
 * it. The authorization is relayed again (a new relayer transaction; the authorization itself can be used once, so
 * this can never pay twice) instead of waiting out `droppedAfterMs` to fail a payment the buyer did authorize
 * (decisions.md §27.23). `relayAuthorization` reads the authorization's state first: one used meanwhile is not sent.
 */
export async function relayAgainIfLost(
  db: Database,
  chain: EvmChain,
  claim: ClaimRecord,
  progress: ClaimProgress,
  now: number,
): Promise<ClaimProgress> {
  if (progress.state !== 'pending' || !claim.txId) return progress;
  const { missingSince, ...details } = progress.details ?? {};
  if (typeof missingSince !== 'number' || missingSince >= now) return progress;
  const d = claim.details as unknown as AuthorizationDetails;
  if (Math.floor(now / 1000) >= Number(d.validBefore)) return progress;
  const { txId } = await relayAuthorization(db, chain, { ...claim, txId: null });
  if (!txId || txId === claim.txId) return progress;
  return { state: 'pending', recheckInMs: progress.recheckInMs, txId, details };
}

/** The transaction that took the sender's nonce, if it was replaced (sped up or cancelled by the wallet). */
async function replacementOf(chain: EvmChain, from: Address, nonce: number, fromBlock: bigint): Promise<Hex | null> {
  const publicClient = chain.clients.public;
  const mined = await publicClient.getTransactionCount({ address: from, blockTag: 'latest' });
  if (mined <= nonce) return null;
  const latest = await publicClient.getBlockNumber({ cacheTime: 0 });
  for (let n = fromBlock; n <= latest; n++) {
    const block = await publicClient.getBlock({ blockNumber: n, includeTransactions: true });
    const tx = block.transactions.find((t) => getAddress(t.from) === from && t.nonce === nonce);
    if (tx) return tx.hash;
  }
  return null;
}

export async function transactionProgress(
  chain: EvmChain,
  claim: ClaimRecord,
  now: number,
  options: SettleOptions,
): Promise<ClaimProgress> {
  const d = claim.details as {
    from: Address;
    nonce: number;
    to: Address;
    data: Hex;
    amount: string;
    recipient: Address;
    fromBlock: string;
  };
  let hash = claim.txId as Hex;
  let receipt = await receiptOrNull(chain, hash);
  if (!receipt) {
    if (await transactionExists(chain, hash)) return found(claim, { state: 'pending', recheckInMs: options.recheckMs });
    const replacement = await replacementOf(chain, d.from, d.nonce, BigInt(d.fromBlock));
    if (!replacement) return missing(claim, now, options, `Transaction ${hash}`);
    const tx = await chain.clients.public.getTransaction({ hash: replacement });
    // A replacement counts only if it is still exactly the issued transfer (a faster gas price is fine).
    if (!tx.to || getAddress(tx.to) !== d.to || tx.input.toLowerCase() !== d.data.toLowerCase()) {
      return {
        state: 'failed',
        reason: `Transaction ${hash} was replaced by a different transaction.`,
        txId: replacement,
      };
    }
    hash = replacement;
    receipt = await receiptOrNull(chain, hash);
    if (!receipt) return { state: 'pending', recheckInMs: options.recheckMs, txId: hash };
  }
  if (receipt.status !== 'success') return { state: 'failed', reason: `Transaction ${hash} reverted.`, txId: hash };
  if (claim.kind === 'erc20') {
    const moved = transferredIn(receipt, d.to, d.from, d.recipient);
    if (moved < BigInt(d.amount)) {
      return { state: 'failed', reason: `Transaction ${hash} moved ${moved}, less than ${d.amount}.`, txId: hash };
    }
  }
  const progress = (await atDepth(chain, receipt, options)) ?? {
    state: 'pending',
    recheckInMs: options.recheckMs,
    txId: hash,
  };
  return found(claim, progress);
}
