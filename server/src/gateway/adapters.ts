/**
 * What the checkout needs from a chain namespace (`eip155`, `solana`): the options, quotes, confirm and
 * confirmation machinery is written once against this interface, and each namespace implements it in
 * `chains/<namespace>/gateway.ts`, so no code outside the adapters branches on the namespace.
 */
import type { PaymentRow } from '../db/queries/payments.js';
import type { components } from '../generated/gateway.js';
import type { OptionKind, VerifiedOption } from './optionToken.js';

export type Action = components['schemas']['Action'];

/** The claim's jobs (gateway/tasks.ts): submit what the service submits, then watch the chain until final. */
export const RELAY_TASK = 'gateway.relay';
export const WATCH_TASK = 'gateway.watchClaim';
export type WalletRpcActionItem = components['schemas']['WalletRpcActionItem'];

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
  /** The task that carries the claim on: relay it, or watch it reach its depth. */
  nextTask: string;
  /** Unix seconds of the block that holds the transfer, when it is already mined (late confirms need it). */
  minedAt: number | null;
  /** Received minus the option's amount: above 0 an overpayment, below 0 an underpayment (both discrepancies). */
  excess: bigint;
  /**
   * Sends the transaction the service broadcasts (Solana), after every check and before the claim is written; a
   * repeat of one that already landed succeeds. Throws `ApiError` when the chain refuses it.
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
  | { state: 'succeeded'; txId: string }
  | { state: 'failed'; reason: string; txId?: string };

export interface ConfirmContext {
  payment: PaymentRow;
  now: number;
}

export interface ChainAdapter {
  namespace: string;
  /** The account in canonical form, or null when it is malformed for this namespace. */
  normaliseAccount(caip10: string): string | null;
  /** What the accounts hold on the chains of the payment's mode where the merchant has a settlement address. */
  holdings(input: { accounts: string[]; live: boolean; settlement: Record<string, string> }): Promise<Holding[]>;
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
}
