import type { components } from './generated/gateway.js';

type Schemas = components['schemas'];
export type PaymentInfo = Schemas['PaymentInfo'];
export type PaymentStatus = Schemas['PaymentStatus'];
export type PaymentStatusResponse = Schemas['PaymentStatusResponse'];
export type CancelPaymentResponse = Schemas['CancelPaymentResponse'];
export type PaymentFailureCode = Schemas['PaymentFailureCode'];
export type PaymentOption = Schemas['PaymentOption'];
export type GetPaymentOptionsRequest = Schemas['GetPaymentOptionsRequest'];
export type GetPaymentOptionsResponse = Schemas['GetPaymentOptionsResponse'];
export type FetchActionRequest = Schemas['FetchActionRequest'];
export type FetchActionResponse = Schemas['FetchActionResponse'];
export type ConfirmPaymentRequest = Schemas['ConfirmPaymentRequest'];
export type ConfirmResult = Schemas['ConfirmResult'];
export type Action = Schemas['Action'];
export type WalletRpcAction = Schemas['WalletRpcAction'];
export type Amount = Schemas['Amount'];
export type CollectData = Schemas['CollectData'];
export type UnavailableNetwork = Schemas['UnavailableNetwork'];

/**
 * An option as `getOptions` answers it: the contract's `PaymentOption`, unchanged, plus what paying it needs that the
 * wire option does not carry. Build one yourself from `getPaymentOptions`' answer if you call that directly.
 */
export interface PayableOption extends PaymentOption {
  /** The payment this option pays. */
  paymentId: string;
  /**
   * The answer's top-level `collectData`, which applies when the option's own `collectData` is null (see
   * `collectDataOf`). Absent counts as null.
   */
  paymentCollectData?: CollectData | null;
}

/** What `getOptions` answers: the payment's options for the accounts, with the payment's id on each. */
export interface PaymentOptions {
  paymentId: string;
  /** In the server's order of recommendation; empty when none of the accounts can pay on a chain the server serves. */
  options: PayableOption[];
  /** The payment-wide data-collection requirement, or null. Each option also carries it (`paymentCollectData`). */
  collectData: CollectData | null;
  /** The payment's information when `includePaymentInfo` was asked for, else null. */
  info: PaymentInfo | null;
  /** Networks of the accounts that cannot be reached now, so they list no option; ask again later. Empty when none. */
  unavailable: UnavailableNetwork[];
}

/** The data-collection form that applies to an option (the contract's rule): its own, else the payment-wide one. */
export function collectDataOf(option: PayableOption): CollectData | null {
  return option.collectData ?? option.paymentCollectData ?? null;
}
