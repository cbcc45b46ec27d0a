/**
 * The port: what the checkout needs from a chain namespace. The options, quotes, confirm and confirmation machinery
 * (server/src/checkout/) is written once against these types, and each namespace implements them in
 * `chains/<namespace>/adapter.ts`, assembled in `chains/adapters.ts`. The port owns every type an adapter receives
 * or returns, so chains/ never imports the checkout, and nothing outside `chains/<namespace>/` names a namespace or
 * a namespace's kind of option (a test greps for it: test/architecture/).
 */
import type { PaymentRow } from '../db/queries/payments.js';
import type { components } from '../generated/gateway.js';

export type Action = components['schemas']['Action'];
export type WalletRpcActionItem = components['schemas']['WalletRpcActionItem'];

/**
 * How an option moves the funds, chosen by its adapter and carried in the option id; opaque to the checkout, which
 * asks the adapter what it implies (`terms`).
 */
export type OptionKind = string;

/** What an option pins. Short keys keep ids short; the names below are what the code uses. */
export interface OptionClaims {
  paymentId: string;
  /** CAIP-10 of the paying account, as the chain adapter normalised it. */
  account: string;
  chain: string;
  /** CAIP-19 of the asset paid. */
  asset: string;
  /** The amount in the asset's minor units. */
  amount: string;
  /** The asset's decimals, so the option's amount can be read without the chain configuration. */
  decimals: number;
  /** Where the funds go: the merchant's settlement address on that chain. */
  recipient: string;
  kind: OptionKind;
  /** Unix seconds after which the quote is stale; null when no rate is involved (a stablecoin of the currency). */
  quoteExpiresAt: number | null;
  /** Unix seconds: the earlier of the quote's expiry and the payment's, the last moment the option can pay. */
  deadline: number;
  /** The rate quoted, fiat major units per whole token, for the record; null for a 1:1 peg. */
  rate: { numerator: string; denominator: string; source: string } | null;
  /** Milliseconds since the epoch, from the business clock. */
  issuedAt: number;
  /** Makes every issued option unique, so two listings never share an authorization nonce or a reference. */
  salt: string;
}

/** An option whose id the checkout signed and checked (checkout/optionToken.ts). */
export interface VerifiedOption {
  claims: OptionClaims;
  /** SHA-256 of the whole token (hex): how claims name the option they paid. */
  digest: string;
  /** The HMAC bytes: the secret-derived seed of the option's nonce and reference. */
  mac: Buffer;
}

/**
 * What an option's kind means for confirm. `settledByService`: the service moves the funds after confirm (it relays
 * a signed authorization), so nothing has moved yet: the claim must be made before the payment expires and while
 * the quote holds. Otherwise the buyer's own transfer moves them, and the time it was mined decides whether a late
 * confirm still pays (docs/decisions.md §17).
 */
export interface OptionTerms {
  settledByService: boolean;
}

/** An asset an account holds on a chain the payment's mode serves, with what the option needs to describe it. */
export interface Holding {
  account: string;
  chain: string;
  kind: OptionKind;
  /** Where the funds go: the merchant's settlement address on the chain. */
  recipient: string;
  balance: bigint;
  etaS: number;
  asset: {
    caip19: string;
    decimals: number;
    symbol: string;
    name: string;
    peg: string | null;
    iconUrl: string | null;
    networkIconUrl: string | null;
    networkName: string | null;
  };
}

/** What a verified confirm claims: written with the move to `processing`, in one transaction. */
export interface ClaimDraft {
  /** The thing that can pay only once (a transaction's sender and nonce, an authorization); unique forever. */
  claimKey: string;
  kind: OptionKind;
  /** The transaction that moves the funds, when already known. */
  txId: string | null;
  details: Record<string, unknown>;
  /** What carries the claim on: `relay` (the service submits it, then watches) or `watch` (it only watches). */
  next: 'relay' | 'watch';
  /** Unix seconds of the block that holds the transfer, when it is already mined (late confirms need it). */
  minedAt: number | null;
  /** Received minus the option's amount: above 0 an overpayment, below 0 an underpayment (both discrepancies). */
  excess: bigint;
  /**
   * Sends the transaction the service broadcasts, after every check and before the claim is written; a repeat of
   * one that already landed succeeds. Throws `ApiError` when the chain refuses it.
   */
  broadcast?: () => Promise<void>;
}

export interface ClaimRecord {
  paymentId: string;
  claimKey: string;
  kind: OptionKind;
  chain: string;
  account: string;
  txId: string | null;
  state: string;
  details: Record<string, unknown>;
}

/** Where a claim stands after a look at the chain. */
export type ClaimProgress =
  | { state: 'pending'; recheckInMs: number; txId?: string; details?: Record<string, unknown> }
  /** `details`: the claim's details with what finality needs later (Solana: the slot it landed in), stored at success. */
  | { state: 'succeeded'; txId: string; details?: Record<string, unknown> }
  | { state: 'failed'; reason: string; txId?: string };

export interface ConfirmContext {
  payment: PaymentRow;
  now: number;
}

/**
 * `final`: the transaction is in a block the chain will never revert (EVM: at or below the `finalized` block, its
 * block still canonical; Solana: `finalized` commitment). `pending`: landed, not final yet. `gone`: the chain does
 * not hold it as a successful transaction now (reorged out, dropped, or failed).
 */
export type Finality = 'pending' | 'final' | 'gone';

/**
 * A namespace's account rules, pure (no chain connection), so a merchant's settlement addresses are checked the
 * same way where no chain runs (the CLI) as where the checkout pays them.
 */
export interface AccountRules {
  namespace: string;
  /** Whether `caip2` is a well-formed chain id of this namespace. */
  isChainId(caip2: string): boolean;
  /** The account in canonical form, or null when it is malformed for this namespace. */
  normaliseAccount(caip10: string): string | null;
  /** What an address of this namespace is, for a refusal ("0x and 40 hex digits"). */
  addressForm: string;
  /** How a chain id of this namespace is written, for a refusal ("eip155:<chainId>"). */
  chainIdForm: string;
  /** A settlement address as the CLI's help shows it (`<caip2>=<address>`). */
  settlementExample: string;
}

/** A landed transaction that names a request's reference, looked for on chain (`TransactionRequests.search`). */
export interface TransactionSearch {
  /** The transaction that pays the option, when one landed: what confirm would claim. */
  paid: ClaimDraft | null;
  /** Landed transactions that name the reference but do not pay the option (altered, failed), with why. */
  refused: { txId: string; reason: string }[];
  /**
   * The search began after the transaction could last land: anything that could land had landed, so nothing this
   * search did not see can ever pay the option.
   */
  final: boolean;
}

/**
 * Transaction requests (Solana Pay's, docs/decisions.md §19): the service builds the option's transaction, signed
 * by its fee payer, for a wallet that signs and sends it itself; the checkout then finds it on chain by the option's
 * reference. A namespace that offers them says so for its chains in `allChains` (`transactionRequests`).
 */
export interface TransactionRequests {
  /** Whether `address` is an account address of the namespace, without its chain (what a wallet posts). */
  isAddress(address: string): boolean;
  /** The option's transaction at a fresh lifetime, signed by the service's fee payer. */
  build(option: VerifiedOption): Promise<{
    /** The wire transaction, base64. */
    transaction: string;
    /** What the search looks for on chain; unique to the option. */
    reference: string;
    /** After this block height the transaction can no longer land. */
    lastValidBlockHeight: bigint;
  }>;
  /** Looks on chain for the transaction that pays the option, by its reference. */
  search(option: VerifiedOption, lastValidBlockHeight: bigint): Promise<TransactionSearch>;
}

/**
 * What the accounts hold, and the chains (CAIP-2, each once) whose balances could not be read because none of their
 * RPC endpoints answered: those list no holdings, and the checkout names them instead of failing the whole answer.
 */
export interface Holdings {
  holdings: Holding[];
  unavailable: string[];
}

export interface ChainAdapter extends AccountRules {
  /** What the accounts hold on the chains of the payment's mode where the merchant has a settlement address. */
  holdings(input: { accounts: string[]; live: boolean; settlement: Record<string, string> }): Promise<Holdings>;
  /** What the option's kind means for confirm. */
  terms(option: VerifiedOption): OptionTerms;
  /** The option's actions, rebuilt from the token alone (deterministic), so fetch and confirm can check them. */
  actions(option: VerifiedOption): Promise<Action[]>;
  /** The wallet RPC calls a `build` action stands for, built now. */
  resolveBuild(option: VerifiedOption, data: string): Promise<WalletRpcActionItem[]>;
  /** Checks the results on chain; throws `ApiError` (`params_validation`) for anything that does not pay the option. */
  verify(option: VerifiedOption, results: string[][], context: ConfirmContext): Promise<ClaimDraft>;
  /** Submits what the service must submit (a relayed authorization); answers the transaction id. */
  submit(claim: ClaimRecord): Promise<{ txId: string | null; details?: Record<string, unknown> }>;
  /** Looks at the chain: still pending, final at the required depth, or failed. */
  progress(claim: ClaimRecord, now: number): Promise<ClaimProgress>;
  /**
   * Where a landed transaction of `chain` stands against the chain's finality (direct settlement waits for it).
   * `claimDetails`: the payment's claim's details, when it has a claim (Solana reads the slot it landed in, §27.30).
   */
  finality(chain: string, txId: string, claimDetails?: Record<string, unknown>): Promise<Finality>;
  /** Present where the namespace serves transaction requests. */
  transactionRequests?: TransactionRequests;
  /** Present when the deposit seed is configured (collected settlement). */
  settlement?: SettlementPort;
}

/**
 * Which settlement key of a namespace (docs/decisions.md §22): a deposit (index ≥ 1, one per payment,
 * `deposit_accounts.derivation_index`), the collection account where sweeps gather funds and payouts and refunds
 * leave from, or development's treasury (used only when PAYGATE_TREASURY_ADDRESSES names none for the chain).
 */
export type KeyRole = { role: 'deposit'; index: number } | { role: 'collection' } | { role: 'devTreasury' };

/** A transfer seen to a deposit address (detection's record, `deposit_transfers`). */
export interface SeenTransfer {
  chain: string;
  /** CAIP-19 of the asset received. */
  asset: string;
  /** The deposit address, canonical form. */
  address: string;
  txId: string;
  /** What makes the transfer unique within its transaction (log index, instruction index). */
  position: number;
  /** The sender when the chain names one (a token transfer's `from`); null when unknown. */
  from: string | null;
  amount: bigint;
  blockNumber: bigint | null;
  blockHash: string | null;
  /** Unix seconds of the block. */
  blockTime: number | null;
}

/**
 * Where a seen transfer or a sent move stands on chain now. `unknown`: the endpoints cannot tell now (not found, a
 * lagging or failing node, with no other block at its height): the caller keeps what it had and asks again later.
 */
export type OnChainState = 'pending' | 'confirmed' | 'final' | 'gone' | 'unknown';

/** One leg of a move: an amount of the move's asset from a settlement key to an address. */
export interface MoveLeg {
  from: KeyRole;
  to: string;
  amount: bigint;
}

/** Funds the service moves itself: a sweep, a payout or a refund (docs/decisions.md §22). */
export interface Move {
  /** The row's id (`swp_…`, `po_…`, `rfd_…`): what makes a resend the same move. */
  id: string;
  chain: string;
  asset: string;
  legs: MoveLeg[];
}

export type MoveProgress =
  | { state: 'pending'; recheckInMs: number; txId?: string }
  | { state: 'final'; txId: string }
  /** Nothing of the move is on chain and nothing of it can land any more: prepare it again. */
  | { state: 'expired' }
  | { state: 'failed'; reason: string }
  /**
   * It can no longer land, but whether it did cannot be told: the node's history does not reach back to where it could
   * have landed (docs/decisions.md §22.16). Never prepared again; looked at again later, and the operator is told.
   */
  | { state: 'unknown'; reason: string; recheckInMs: number };

/**
 * Whether a move given up on (reverted, or never sent) can still execute from its stored details
 * (docs/decisions.md §22.11): `live` while it could (wait, look again), `dead` once it never can and did not
 * (what it covered may be given back), `executed` when it did after all (completed as any sent move).
 */
export type MoveEnd = { state: 'live'; recheckInMs: number } | { state: 'dead' } | { state: 'executed'; txId: string };

/** How a plain wallet or an exchange is asked to pay a deposit address (docs/decisions.md §22). */
export interface DepositInstructions {
  /** CAIP-19 of the assets of `chain` a deposit may be paid in: those the namespace can move without the buyer. */
  assets(chain: string): string[];
  /** The payment URI a wallet opens or a QR code carries: EIP-681 on EVM, a Solana Pay transfer request on Solana. */
  paymentUri(input: { chain: string; asset: string; address: string; amount: bigint; label?: string }): string;
}

/** Detection of transfers to deposit addresses, resumable from an opaque cursor the caller stores (`scan_cursors`). */
export interface DepositScan {
  /**
   * Transfers of the chain's deposit assets to `addresses` since `cursor` (null: from the chain's head now), and the
   * cursor to resume from. A transfer may be answered again by a later scan (after a reorg): the caller keys them.
   */
  scan(
    chain: string,
    addresses: string[],
    cursor: string | null,
  ): Promise<{ transfers: SeenTransfer[]; cursor: string }>;
  /** Where a seen transfer stands now: `pending` (below the required confirmations), `confirmed`, `final`, `gone`, `unknown`. */
  status(transfer: SeenTransfer): Promise<OnChainState>;
  /**
   * A cursor from which a scan sees every transfer sent from now on (docs/decisions.md §27.27): stored when a chain's
   * first deposit address is given out, before anyone can pay it. Absent where a scan without a cursor already reads
   * each address's whole history (Solana).
   */
  cursorNow?(chain: string): Promise<string>;
}

/** Moves of funds by the service itself (sweeps, payouts, refunds). */
export interface MoveSender {
  /** Builds and signs what the move takes; the caller stores the answer in the move's row before calling `send`. */
  prepare(move: Move): Promise<Record<string, unknown>>;
  /** Sends (again) what `prepare` built; safe to repeat; answers the transaction id. */
  send(move: Move, details: Record<string, unknown>): Promise<{ txId: string }>;
  /** Where the move stands: pending, final (at the chain's finality), expired (prepare again) or failed. */
  progress(move: Move, details: Record<string, unknown>, txId: string | null): Promise<MoveProgress>;
  /**
   * Whether the stored details of a move the executor gives up on can still execute: called before what it covered is
   * given back, which happens only on `dead`. A move of which only a part executed is never `dead`.
   */
  ended(move: Move, details: Record<string, unknown>, txId: string | null): Promise<MoveEnd>;
}

/**
 * Collected settlement's chain operations, present on a namespace's adapter when PAYGATE_DEPOSIT_SEED is set. Every
 * method is safe to call again after a crash at any point: a move's `details` (written before `send`) make a resend
 * the same move, and `progress` tells whether any of it landed. A chain serves collected settlement only where its
 * namespace has all of `deposits`, `scanner` and `mover`.
 */
export interface SettlementPort {
  /** The address of a settlement key on `chain`, canonical form. */
  keyAddress(chain: string, role: KeyRole): Promise<string>;
  /** How much of `asset` (CAIP-19) `address` holds on `chain` now, in minor units. */
  balance(chain: string, asset: string, address: string): Promise<bigint>;
  deposits?: DepositInstructions;
  scanner?: DepositScan;
  mover?: MoveSender;
}
