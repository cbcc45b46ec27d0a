/**
 * The local Solana chain: one in-process LiteSVM (SPL Token, Token-2022, Associated Token Account and Memo programs,
 * signature verification and the blockhash check on) with a clock that runs with wall time, and a record of the
 * transactions that landed, for the RPC's status and transaction queries.
 *
 * Time and blockhashes. A slot passes every `slotMs` (400 ms, Solana's target) and is one block, so the block height
 * is the number of slots since genesis; the Clock sysvar follows (slot and unix timestamp). LiteSVM knows exactly one
 * blockhash, its latest, where a validator accepts any of the last 150. So the ledger keeps the blockhashes it has
 * handed out (getLatestBlockhash, or simulateTransaction's replaceRecentBlockhash), each with
 * `lastValidBlockHeight = height at issue + 150`, checks a transaction's blockhash against them itself (LiteSVM's own
 * check is off), and gives a new blockhash to a caller in a later slot than the last issue, as a validator's new bank
 * would: every caller gets a blockhash with its full life, and one handed out earlier stays usable until its height
 * passes. LiteSVM's current blockhash, not yet handed out, is usable too (the faucet signs with it) and does not
 * age. The test controls (`paygate_expireBlockhash`, `paygate_warpSlots`) act on the same state.
 */
import { FailedTransactionMetadata, LiteSVM, TransactionMetadata, type SimulatedTransactionInfo } from 'litesvm';
import {
  getAddressDecoder,
  getCompiledTransactionMessageDecoder,
  getBase58Decoder,
  getBase64Decoder,
  type Address,
  type EncodedAccount,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { tokenBalances, type MaybeAccount, type RpcTokenBalance } from './accounts.js';
import {
  RPC_ERROR,
  RpcError,
  transactionErrorJson,
  transactionErrorMessage,
  type RpcTransactionError,
} from './errors.js';
import { transactionAccounts, transactionFee, type DecodedTransaction, type LoadedAddresses } from './transactions.js';

/** Solana's target slot time. */
export const DEFAULT_SLOT_MS = 400;
/** MAX_PROCESSING_AGE: a blockhash is usable for this many blocks after its own. */
export const BLOCKHASH_LIFETIME_BLOCKS = 150n;
/** Slots after which a landed transaction counts as finalized (Tower BFT's 32-deep lockout). */
export const FINALIZATION_DEPTH = 32n;
/** Transactions kept for getSignatureStatuses/getTransaction (and LiteSVM's duplicate check), by default. */
export const HISTORY_CAPACITY = 20_000;

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface LedgerOptions {
  /** Wall-clock milliseconds per slot; 400 by default. */
  slotMs?: number;
  /** The clock, for tests that drive time; Date.now by default. */
  now?: () => number;
  /**
   * How many landed transactions the ledger keeps (HISTORY_CAPACITY by default), as a validator's
   * `--limit-ledger-size` bounds its ledger: older ones are forgotten, and the first available slot moves past them.
   */
  historyCapacity?: number;
}

export interface RpcInnerInstructions {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[];
}

/** What executing or simulating a transaction produced, in RPC terms. */
export interface ExecutionOutcome {
  err: RpcTransactionError | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: Address; data: [string, 'base64'] } | null;
  innerInstructions: RpcInnerInstructions[];
}

export interface LandedTransaction {
  decoded: DecodedTransaction;
  slot: bigint;
  blockTime: bigint;
  fee: bigint;
  accountKeys: Address[];
  loadedAddresses: LoadedAddresses;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: RpcTokenBalance[];
  postTokenBalances: RpcTokenBalance[];
  outcome: ExecutionOutcome;
}

export interface SendOptions {
  skipPreflight?: boolean;
  /** The faucet's own transactions are not subject to `holdTransactions`. */
  ignoreHold?: boolean;
}

function outcomeOf(meta: TransactionMetadata, err: RpcTransactionError | null): ExecutionOutcome {
  const returned = meta.returnData();
  const returnedData = returned.data();
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    returnData:
      returnedData.length > 0
        ? {
            programId: getAddressDecoder().decode(returned.programId()),
            data: [getBase64Decoder().decode(returnedData), 'base64'],
          }
        : null,
    innerInstructions: meta
      .innerInstructions()
      .map((inner, index) => ({
        index,
        instructions: inner.map((i) => ({
          programIdIndex: i.instruction().programIdIndex(),
          accounts: [...i.instruction().accounts()],
          data: getBase58Decoder().decode(i.instruction().data()),
          stackHeight: i.stackHeight(),
        })),
      }))
      .filter((inner) => inner.instructions.length > 0),
  };
}

export class LocalLedger {
  readonly svm: LiteSVM;
  readonly slotMs: number;
  private readonly now: () => number;
  private readonly startMs: number;
  private readonly genesisSlot: bigint;
  private warped = 0n;
  private currentSlot: bigint;
  /** The blockhash last handed out, and the block height it was handed out at. */
  private issued: { blockhash: string; lastValidBlockHeight: bigint; height: bigint } | null = null;
  /** Every blockhash handed out and not yet past its last valid block height → that height. */
  private readonly usable = new Map<string, bigint>();
  private holding = false;
  private readonly landed = new Map<string, LandedTransaction>();
  /** Every account key a landed transaction touches → its signatures, in landing order (getSignaturesForAddress). */
  private readonly byAccount = new Map<string, string[]>();
  private readonly historyCapacity: number;
  /** The lowest slot whose landed transactions are all still in the history (minimumLedgerSlot). */
  private historyFrom: bigint;

  constructor(options: LedgerOptions = {}) {
    this.slotMs = options.slotMs ?? DEFAULT_SLOT_MS;
    this.now = options.now ?? Date.now;
    this.startMs = this.now();
    this.historyCapacity = options.historyCapacity ?? HISTORY_CAPACITY;
    if (!Number.isInteger(this.historyCapacity) || this.historyCapacity < 1) {
      throw new Error('historyCapacity must be a positive integer');
    }
    // new LiteSVM(): builtins, sysvars, the default SPL programs and sigverify on; the blockhash check is the ledger's.
    this.svm = new LiteSVM().withTransactionHistory(BigInt(this.historyCapacity)).withBlockhashCheck(false);
    this.genesisSlot = this.svm.getClock().slot;
    this.currentSlot = this.genesisSlot;
    this.historyFrom = this.genesisSlot;
    this.applyClock();
  }

  /** Moves the clock to wall time, forgetting the blockhashes whose last valid block height has passed. */
  sync(): void {
    const elapsed = BigInt(Math.max(0, Math.floor((this.now() - this.startMs) / this.slotMs)));
    const slot = this.genesisSlot + elapsed + this.warped;
    if (slot > this.currentSlot) {
      this.currentSlot = slot;
      this.applyClock();
    }
    const height = this.blockHeightNow();
    for (const [blockhash, lastValid] of this.usable) if (height > lastValid) this.usable.delete(blockhash);
    if (this.issued && !this.usable.has(this.issued.blockhash)) this.expireCurrent();
  }

  private applyClock(): void {
    const clock = this.svm.getClock();
    clock.slot = this.currentSlot;
    clock.unixTimestamp = this.blockTime(this.currentSlot);
    this.svm.setClock(clock);
  }

  private blockHeightNow(): bigint {
    return this.currentSlot - this.genesisSlot;
  }

  /** The unix time (seconds) of a slot: genesis wall time plus its slots (warped ones included). */
  blockTime(slot: bigint): bigint {
    return BigInt(Math.floor((this.startMs + Number(slot - this.genesisSlot) * this.slotMs) / 1000));
  }

  /** The slot a commitment has reached: the tip, or 32 slots behind it for `finalized`. */
  slot(commitment: Commitment = 'confirmed'): bigint {
    this.sync();
    if (commitment !== 'finalized') return this.currentSlot;
    const finalized = this.currentSlot - FINALIZATION_DEPTH;
    return finalized > this.genesisSlot ? finalized : this.genesisSlot;
  }

  blockHeight(commitment: Commitment = 'confirmed'): bigint {
    return this.slot(commitment) - this.genesisSlot;
  }

  /** The blockhash to build transactions with: a fresh one, with all of its 150 blocks, once per slot. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    this.sync();
    const height = this.blockHeightNow();
    if (this.issued && this.issued.height < height) this.svm.expireBlockhash();
    const blockhash = this.svm.latestBlockhash();
    if (this.issued?.blockhash !== blockhash) {
      this.issued = { blockhash, lastValidBlockHeight: height + BLOCKHASH_LIFETIME_BLOCKS, height };
      this.usable.set(blockhash, this.issued.lastValidBlockHeight);
    }
    return { blockhash, lastValidBlockHeight: this.issued.lastValidBlockHeight };
  }

  /** Whether a transaction with this blockhash would be accepted now. */
  isBlockhashValid(blockhash: string): boolean {
    this.sync();
    return this.usable.has(blockhash) || this.svm.latestBlockhash() === blockhash;
  }

  /** Makes every blockhash handed out so far, and LiteSVM's current one, unusable from now on. */
  expireBlockhash(): void {
    this.usable.clear();
    this.expireCurrent();
  }

  private expireCurrent(): void {
    this.svm.expireBlockhash();
    this.issued = null;
  }

  /** Advances the clock by `slots` slots (and their time) at once. */
  warpSlots(slots: bigint): void {
    this.warped += slots;
    this.sync();
  }

  /** While held, sent transactions are accepted (after preflight) and dropped, never landing. */
  holdTransactions(hold: boolean): void {
    this.holding = hold;
  }

  get holdingTransactions(): boolean {
    return this.holding;
  }

  getAccount = (address: Address): MaybeAccount => this.svm.getAccount(address);

  programAccounts(program: Address): EncodedAccount[] {
    return this.svm.getProgramAccounts(program);
  }

  /**
   * Runs a transaction against the current state without committing it. With `sigVerify` off (simulateTransaction's
   * default) LiteSVM skips signature verification and the duplicate check, as Agave's simulation does.
   */
  simulate(
    transaction: Transaction,
    sigVerify: boolean,
  ): { outcome: ExecutionOutcome; postAccounts: EncodedAccount[] | null } {
    this.sync();
    const blockhash = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken;
    if (!this.isBlockhashValid(blockhash)) {
      const outcome = {
        err: 'BlockhashNotFound',
        logs: [],
        unitsConsumed: 0n,
        returnData: null,
        innerInstructions: [],
      };
      return { outcome: outcome satisfies ExecutionOutcome, postAccounts: null };
    }
    this.svm.withSigverify(sigVerify);
    let result: FailedTransactionMetadata | SimulatedTransactionInfo;
    try {
      result = this.svm.simulateTransaction(transaction);
    } finally {
      // The instance verifies signatures at all other times.
      this.svm.withSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      return { outcome: outcomeOf(result.meta(), transactionErrorJson(result.err())), postAccounts: null };
    }
    return { outcome: outcomeOf(result.meta(), null), postAccounts: result.postAccounts() };
  }

  /**
   * sendTransaction: preflight (signatures, then a simulation) unless skipped, then execution. Returns the signature
   * whether or not the transaction landed, as the RPC does: a transaction refused by the runtime before execution
   * (bad signature, unknown blockhash, duplicate, no fee) is dropped; one that fails in execution lands with its error.
   */
  send(decoded: DecodedTransaction, options: SendOptions = {}): string {
    this.sync();
    if (!options.skipPreflight) this.preflight(decoded);
    if ((this.holding && !options.ignoreHold) || !decoded.fullySigned) return decoded.signature;
    // The runtime refuses an unknown or expired blockhash before execution: dropped, as with preflight skipped.
    if (!this.isBlockhashValid(decoded.recentBlockhash)) return decoded.signature;
    const signature = decoded.signature as Signature;
    const knownBefore = this.svm.getTransaction(signature) !== null;
    const { accountKeys, loadedAddresses } = transactionAccounts(decoded.message, this.getAccount);
    const pre = accountKeys.map(this.getAccount);
    const result = this.svm.sendTransaction(decoded.transaction);
    const included =
      result instanceof TransactionMetadata || (!knownBefore && this.svm.getTransaction(signature) !== null);
    if (!included) return decoded.signature;
    const post = accountKeys.map(this.getAccount);
    const balance = (a: MaybeAccount) => (a.exists ? BigInt(a.lamports) : 0n);
    this.record({
      decoded,
      slot: this.currentSlot,
      blockTime: this.blockTime(this.currentSlot),
      fee: transactionFee(decoded.message),
      accountKeys,
      loadedAddresses,
      preBalances: pre.map(balance),
      postBalances: post.map(balance),
      preTokenBalances: tokenBalances(pre, this.getAccount),
      postTokenBalances: tokenBalances(post, this.getAccount),
      outcome:
        result instanceof TransactionMetadata
          ? outcomeOf(result, null)
          : outcomeOf(result.meta(), transactionErrorJson(result.err())),
    });
    return decoded.signature;
  }

  private preflight(decoded: DecodedTransaction): void {
    const refused = () =>
      new RpcError(RPC_ERROR.transactionSignatureVerificationFailure, 'Transaction signature verification failure');
    if (!decoded.fullySigned) throw refused();
    const { outcome } = this.simulate(decoded.transaction, true);
    if (outcome.err === 'SignatureFailure') throw refused();
    if (outcome.err !== null) {
      throw new RpcError(
        RPC_ERROR.sendTransactionPreflightFailure,
        `Transaction simulation failed: ${transactionErrorMessage(outcome.err)}`,
        {
          accounts: null,
          err: outcome.err,
          fee: null,
          innerInstructions: null,
          loadedAddresses: null,
          logs: outcome.logs,
          postBalances: null,
          postTokenBalances: null,
          preBalances: null,
          preTokenBalances: null,
          replacementBlockhash: null,
          returnData: outcome.returnData,
          unitsConsumed: outcome.unitsConsumed,
        },
      );
    }
  }

  private record(transaction: LandedTransaction): void {
    const signature = transaction.decoded.signature;
    this.landed.set(signature, transaction);
    for (const key of new Set(transaction.accountKeys)) {
      const list = this.byAccount.get(key) ?? [];
      list.push(signature);
      this.byAccount.set(key, list);
    }
    if (this.landed.size > this.historyCapacity) this.forget(this.landed.keys().next().value!);
  }

  /**
   * The first slot the history is complete from: every transaction that landed in it or later is still known. A
   * status lookup answers "unknown" truthfully only for a transaction that could not have landed before it.
   */
  firstAvailableSlot(): bigint {
    return this.historyFrom;
  }

  /** Drops the oldest transaction from the history and from the index of each account it touched. */
  private forget(signature: string): void {
    const oldest = this.landed.get(signature);
    this.landed.delete(signature);
    // Its slot may still hold later transactions, but no longer all of them.
    if (oldest && oldest.slot + 1n > this.historyFrom) this.historyFrom = oldest.slot + 1n;
    for (const key of new Set(oldest?.accountKeys ?? [])) {
      const list = this.byAccount.get(key);
      // The oldest transaction is the first of each of its lists.
      if (list?.[0] === signature) list.shift();
      if (list?.length === 0) this.byAccount.delete(key);
    }
  }

  /** The landed transactions that touched an account (as a static or loaded key), newest first. */
  signaturesFor(account: string): LandedTransaction[] {
    this.sync();
    const list = this.byAccount.get(account) ?? [];
    const found: LandedTransaction[] = [];
    for (let i = list.length - 1; i >= 0; i--) {
      const landed = this.landed.get(list[i]!);
      if (landed) found.push(landed);
    }
    return found;
  }

  /** A landed transaction, if it is among the last `historyCapacity` (20,000 by default). */
  transaction(signature: string): LandedTransaction | null {
    this.sync();
    return this.landed.get(signature) ?? null;
  }

  /** How deep a landed transaction is, and whether that makes it finalized. */
  confirmations(landed: LandedTransaction): { confirmations: bigint | null; finalized: boolean } {
    const depth = this.slot() - landed.slot;
    const finalized = depth >= FINALIZATION_DEPTH;
    return { confirmations: finalized ? null : depth, finalized };
  }
}
