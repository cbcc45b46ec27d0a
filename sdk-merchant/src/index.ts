/**
 * @paygate/sdk-merchant: a typed client of the merchant API, and the webhook verifier and event processor of
 * @paygate/webhook-verifier, so that one package covers both halves of an integration. See the package README.
 */
export { createMerchantClient, SDK_VERSION, type MerchantClient, type MerchantClientOptions } from './client.js';
export { PaygateError, type ErrorCode } from './errors.js';
export {
  DEFAULT_POLL_MS,
  PaygateMerchant,
  type CreatePaymentOptions,
  type CreatePaymentRequest,
  type CreatePaymentResponse,
  type CreateInvoiceRequest,
  type Invoice,
  type InvoiceList,
  type InvoiceListIterable,
  type InvoiceSequence,
  type ListInvoicesFilter,
  type UpdateInvoiceSequenceRequest,
  type FeeBalances,
  type ListPayoutsFilter,
  type Payout,
  type PayoutList,
  type PayoutListIterable,
  type RefundOptions,
  type SettlementBalances,
  type ListPaymentsFilter,
  type MerchantPaymentStatus,
  type PaymentList,
  type PaymentListIterable,
  type PaymentSnapshot,
  type PaymentStatus,
  type PaymentStatusResponse,
  type ReasonOptions,
  type RequestOptions,
  type SimulateTarget,
  type WaitForFinalOptions,
  type PaymentLink,
  type PaymentLinkList,
  type CreatePaymentLinkRequest,
  type UpdatePaymentLinkRequest,
  type ListPaymentLinksFilter,
} from './merchant.js';
export { MAX_RETRY_AFTER_MS, type FetchLike } from '@paygate/client-core';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';

export type { components, operations, paths, webhooks } from './generated/merchant.js';
export {
  errorCodeValues,
  merchantPaymentStatusValues,
  paymentStatusValues,
  simulatePaymentRequestToValues,
  webhookEventTypeValues,
} from './generated/merchant.js';

// PaymentSnapshot and PaymentStatus come from this package's copy of the same contract, above.
export {
  EventProcessor,
  memoryStore,
  sqlStore,
  sqlStoreSchema,
  Webhook,
  WebhookVerificationError,
  type EventProcessorOptions,
  type EventStore,
  type HeadersLike,
  type HeaderRecord,
  type ProcessResult,
  type RawBody,
  type SqlDialect,
  type SqlQuery,
  type SqlStore,
  type SqlStoreOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookOptions,
  type WebhookVerificationReason,
} from '@paygate/webhook-verifier';
