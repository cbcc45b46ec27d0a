/**
 * Moves of funds by the service on Solana (chains/adapter.ts `MoveSender`, docs/decisions.md §22.5): one v0
 * transaction per move whose fee payer is the chain's fee payer (so deposit and collection keys never hold SOL),
 * with one `TransferChecked` per leg signed by the leg's settlement key, each destination's associated token account
 * created idempotently first (the fee payer pays its rent).
 *
 * - `prepare` signs it at a fresh blockhash; the caller stores the wire bytes, the signature and the blockhash's
 *   `lastValidBlockHeight` before anything is sent, so a resend after a crash is the same transaction and lands at
 *   most once (the signature is the transaction's identity on chain).
 * - `send` skips preflight: a transaction that would fail lands with its error and the fee payer pays its fee, so a
 *   failure is a fact on chain that `progress` reads, not a refusal at send that a caller would retry forever.
 * - A Solana transaction is atomic: `failed` means none of its legs moved, and `expired` means it never landed and
 *   can no longer land (the finalized block height passed its `lastValidBlockHeight`): in both cases nothing moved
 *   and the move may be prepared again.
 * - "Never landed" is the node's answer to a status lookup with history, and a node answers "unknown" for anything it
 *   no longer holds. So `expired` also needs the node's history to start at or before the slot the blockhash was read
 *   at (the transaction cannot land before it); otherwise the answer is `unknown` and the move is never signed again
 *   (docs/decisions.md §22.16).
 */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { KeyRole, Move, MoveEnd, MoveProgress, MoveSender } from '../adapter.js';
import type { SolanaChain } from './client.js';
import type { SolanaSettlementKeys } from './depositKeys.js';
import { associatedTokenAccount } from './transfer.js';

/** Solana's largest transaction on the wire (PACKET_DATA_SIZE). */
const MAX_TRANSACTION_BYTES = 1232;
/** A landed transaction reaches `finalized` ~32 slots (~13 s) later; one that has not landed is checked as often. */
const RECHECK_MS = 2_000;
/** A move whose landing the node cannot tell is looked at again this much later (another node may be configured). */
const UNKNOWN_RECHECK_MS = 10 * 60_000;
/** MAX_PROCESSING_AGE: a blockhash is usable for this many blocks after its own. */
const BLOCKHASH_LIFETIME_BLOCKS = 150n;

/** What `prepare` answers and the move's row stores (`details`). */
export interface SolanaMoveDetails {
  /** The signed transaction, base64 wire format: what every send sends. */
  transaction: string;
  signature: string;
  /** Decimal: after this block height the transaction can no longer land. */
  lastValidBlockHeight: string;
  /**
   * Decimal: the slot the blockhash was read at; the transaction can only land after it. Absent from details stored
   * before §22.16, which are bounded by `lastValidBlockHeight` − 150 instead (a block's slot is never below its height).
   */
  fromSlot?: string;
}

const DECIMAL = /^\d+$/;

function detailsOf(move: Move, details: Record<string, unknown>): SolanaMoveDetails {
  const { transaction, signature, lastValidBlockHeight, fromSlot } = details;
  if (
    typeof transaction !== 'string' ||
    typeof signature !== 'string' ||
    typeof lastValidBlockHeight !== 'string' ||
    !DECIMAL.test(lastValidBlockHeight) ||
    (fromSlot !== undefined && (typeof fromSlot !== 'string' || !DECIMAL.test(fromSlot)))
  ) {
    throw new Error(`move ${move.id}: its details are not a prepared Solana transaction`);
  }
  return { transaction, signature, lastValidBlockHeight, ...(fromSlot !== undefined && { fromSlot }) };
}

/** The first slot the stored transaction could have landed in. */
function earliestSlotOf(prepared: SolanaMoveDetails): bigint {
  if (prepared.fromSlot !== undefined) return BigInt(prepared.fromSlot);
  const fromHeight = BigInt(prepared.lastValidBlockHeight) - BLOCKHASH_LIFETIME_BLOCKS;
  return fromHeight > 0n ? fromHeight : 0n;
}

function roleId(role: KeyRole): string {
  return role.role === 'deposit' ? `deposit:${role.index}` : role.role;
}

/** A transaction error as text: kit answers u64 fields as bigint, which JSON.stringify refuses. */
function errorText(err: unknown): string {
  return JSON.stringify(err, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

export function solanaMoveSender(chains: SolanaChain[], keys: SolanaSettlementKeys): MoveSender {
  const chainOf = (caip2: string): SolanaChain => {
    const chain = chains.find((c) => c.config.caip2 === caip2);
    if (!chain) throw new Error(`${caip2} is not a configured Solana chain`);
    return chain;
  };

  async function instructionsOf(chain: SolanaChain, move: Move): Promise<Instruction[]> {
    const asset = chain.config.assets.find((a) => a.caip19 === move.asset);
    if (!asset) throw new Error(`move ${move.id}: ${move.asset} is not an asset of ${move.chain}`);
    if (asset.mint === null) throw new Error(`move ${move.id}: only SPL tokens move in collected settlement, not SOL`);
    if (move.legs.length === 0) throw new Error(`move ${move.id} has no legs`);
    const mint = asset.mint;
    // One signer object per key: kit refuses two different signers of one address in a transaction.
    const signers = new Map<string, Promise<KeyPairSigner>>();
    const signerOf = (role: KeyRole) => {
      const id = roleId(role);
      if (!signers.has(id)) signers.set(id, keys.signer(role));
      return signers.get(id)!;
    };
    const created = new Set<string>();
    const instructions: Instruction[] = [];
    for (const leg of move.legs) {
      if (leg.amount <= 0n) throw new Error(`move ${move.id}: a leg's amount must be positive`);
      const authority = await signerOf(leg.from);
      const owner = leg.to as Address;
      const [source, destination] = await Promise.all([
        associatedTokenAccount(authority.address, mint),
        associatedTokenAccount(owner, mint),
      ]);
      if (!created.has(destination)) {
        created.add(destination);
        instructions.push(
          getCreateAssociatedTokenIdempotentInstruction({ payer: chain.feePayer, ata: destination, owner, mint }),
        );
      }
      instructions.push(
        getTransferCheckedInstruction({
          source,
          mint,
          destination,
          authority,
          amount: leg.amount,
          decimals: asset.decimals,
        }),
      );
    }
    return instructions;
  }

  async function statusOf(chain: SolanaChain, signature: string) {
    const answer = await chain.rpc
      .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
      .send();
    return answer.value[0] ?? null;
  }

  /**
   * The first slot from which the node can answer a status lookup with history: the later of the lowest slot of its
   * own ledger and its first available block (which also counts a long-term store such as Bigtable), so that neither
   * source's gap is taken for an absence. Read after the status, so it bounds what that lookup could see: history is
   * only ever pruned further, never filled in.
   */
  async function historyFromOf(chain: SolanaChain): Promise<bigint> {
    const [ledgerSlot, firstBlock] = await Promise.all([
      chain.rpc.minimumLedgerSlot().send(),
      chain.rpc.getFirstAvailableBlock().send(),
    ]);
    return ledgerSlot > firstBlock ? ledgerSlot : firstBlock;
  }

  const sender: MoveSender = {
    async prepare(move) {
      const chain = chainOf(move.chain);
      const instructions = await instructionsOf(chain, move);
      const { context, value: lifetime } = await chain.rpc
        .getLatestBlockhash({ commitment: chain.config.commitment })
        .send();
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(chain.feePayer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      const signed = await signTransactionMessageWithSigners(message);
      const transaction = getBase64EncodedWireTransaction(signed);
      const size = Buffer.from(transaction, 'base64').length;
      if (size > MAX_TRANSACTION_BYTES) {
        throw new Error(
          `move ${move.id}: ${move.legs.length} legs take ${size} bytes, more than one Solana transaction holds (${MAX_TRANSACTION_BYTES})`,
        );
      }
      const details: SolanaMoveDetails = {
        transaction,
        signature: getSignatureFromTransaction(signed),
        lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
        fromSlot: context.slot.toString(),
      };
      return { ...details };
    },

    async send(move, details) {
      const chain = chainOf(move.chain);
      const prepared = detailsOf(move, details);
      try {
        await chain.rpc
          .sendTransaction(prepared.transaction as Base64EncodedWireTransaction, {
            encoding: 'base64',
            skipPreflight: true,
          })
          .send();
      } catch (err) {
        // A resend of a transaction that already landed (after a lost answer, by another worker) is not an error.
        if ((await statusOf(chain, prepared.signature)) === null) throw err;
      }
      return { txId: prepared.signature };
    },

    async progress(move, details): Promise<MoveProgress> {
      const chain = chainOf(move.chain);
      const prepared = detailsOf(move, details);
      // The height is read before the status: if it is past the last valid height and the status (read after)
      // is still unknown, the transaction had not landed by then and never can.
      const finalizedHeight = await chain.rpc.getBlockHeight({ commitment: 'finalized' }).send();
      const status = await statusOf(chain, prepared.signature);
      const txId = prepared.signature;
      if (status === null) {
        if (finalizedHeight <= BigInt(prepared.lastValidBlockHeight))
          return { state: 'pending', recheckInMs: RECHECK_MS };
        const historyFrom = await historyFromOf(chain);
        const earliest = earliestSlotOf(prepared);
        if (historyFrom > earliest) {
          return {
            state: 'unknown',
            recheckInMs: UNKNOWN_RECHECK_MS,
            reason:
              `Transaction ${txId} can no longer land, but the node's history starts at slot ${historyFrom}, after slot ` +
              `${earliest} where it could have landed: whether it did cannot be told from this node`,
          };
        }
        return { state: 'expired' };
      }
      // Until finalized, a landing (failed or not) may still be rolled back and the same bytes land again.
      if (status.confirmationStatus !== 'finalized') return { state: 'pending', recheckInMs: RECHECK_MS, txId };
      if (status.err !== null) {
        return {
          state: 'failed',
          reason: `Transaction ${txId} landed with an error, so none of its legs moved: ${errorText(status.err)}`,
        };
      }
      return { state: 'final', txId };
    },

    /**
     * The stored transaction can never land once the finalized height passed its last valid height (or it landed
     * with an error, final): then it is dead unless it landed without one, which `progress` tells apart.
     */
    async ended(move, details): Promise<MoveEnd> {
      const seen = await sender.progress(move, details, null);
      // Unknown: it may have landed, so what it covered is never given back on this node's word.
      if (seen.state === 'pending' || seen.state === 'unknown') return { state: 'live', recheckInMs: seen.recheckInMs };
      if (seen.state === 'final') return { state: 'executed', txId: seen.txId };
      return { state: 'dead' };
    },
  };
  return sender;
}
