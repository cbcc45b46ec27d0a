/**
 * The port every settlement mode implements (docs/decisions.md §22, §25.1). A payment keeps the mode it was created
 * under (payments.settlement_mode); settlement/modes.ts maps that stored name to its implementation, one folder per
 * mode (settlement/direct/, settlement/collected/). The checkout and the payment's lifecycle ask the payment's mode
 * for each of these answers and never test its name, so a third mode is a folder, not edits in six files.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ChainAdapter } from '../chains/adapter.js';
import type { Chains } from '../chains/index.js';
import type { Database } from '../db/connect.js';
import type { MerchantRow, SettlementMode as SettlementModeName } from '../db/queries/accounts.js';
import type { PaymentRow } from '../db/queries/payments.js';
import type { components } from '../generated/gateway.js';
import type { JobQueue } from '../jobs/types.js';
import type { FeeBreakdown, Money } from '../payments/fees.js';
import type { Pricing } from '../quotes/index.js';

export type { SettlementModeName };

export type DepositOptionsResponse = components['schemas']['GetDepositOptionsResponse'];

/** What a mode needs of the runtime's checkout to answer for a payment (checkout/context.ts `Checkout` has all of it). */
export interface SettlementModeDeps {
  db: Database;
  logger: Pick<Logger, 'error'>;
  chains: Chains | null;
  adapters: ChainAdapter[];
  pricing: Pricing;
  now: () => number;
}

/** What a mode may do in the transaction of a payment's success: write rows, add jobs. */
export interface SucceededDeps {
  jobs: Pick<JobQueue, 'add'>;
  now: () => number;
}

/** Where a payment's wallet options pay. */
export interface OptionRecipients {
  /** The recipient on each chain, by CAIP-2 id (the `settlement` map `ChainAdapter.holdings` takes). */
  settlement: Record<string, string>;
  /** The assets (CAIP-19) an option may be in; null: every asset the chain offers. */
  assets: ReadonlySet<string> | null;
}

export interface SettlementMode {
  /** The name stored with the payment and the merchant, and shown in the contract. */
  readonly name: SettlementModeName;
  /** Where the payment's wallet options pay, and in which assets (checkout/options.ts). */
  optionRecipients(deps: SettlementModeDeps, payment: PaymentRow, merchant: MerchantRow): Promise<OptionRecipients>;
  /**
   * What the merchant is owed for the option's amount (the claim's `settlement_amount`). No rounding: both are
   * integers in the option asset's minor units, and the fee never exceeds the amount.
   */
  settlementAmount(optionAmount: Money, fee: FeeBreakdown | null): Money;
  /**
   * Whether money paid to the payment's option recipient on `chain` can still reach the merchant. False: confirm
   * refuses what the service has not moved yet, and a transfer already on chain is an `unroutable_deposit` finding.
   */
  reachesMerchant(
    deps: Pick<SettlementModeDeps, 'db'>,
    payment: Pick<PaymentRow, 'id' | 'merchant_id'>,
    chain: string,
  ): Promise<boolean>;
  /** Whether a plain transfer to one of the payment's deposit addresses pays it (deposit detection credits it). */
  readonly paidByDeposit: boolean;
  /** The gateway's deposit options (getDepositOptions); a mode without deposits refuses with `invalid_state`. */
  depositOptions(deps: SettlementModeDeps, payment: PaymentRow): Promise<DepositOptionsResponse>;
  /**
   * Runs in the transaction of the payment's `payment.succeeded` event, whichever path made it succeed (a watched
   * claim, deposit detection, a simulation), once: the event is written once.
   */
  onSucceeded(deps: SucceededDeps, trx: Knex.Transaction, payment: PaymentRow): Promise<void>;
}
