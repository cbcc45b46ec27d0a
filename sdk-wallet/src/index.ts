/**
 * @paygate/sdk-wallet: a typed client of the gateway API and the payment flow of a wallet (options, actions signed
 * with an EIP-1193 provider or a Solana signer, confirm, status). Works in Node.js and in browsers. See the README.
 */
export {
  createGatewayClient,
  detectPlatform,
  SDK_NAME,
  SDK_VERSION,
  SVC_VERSION,
  type GatewayClient,
  type GatewayClientOptions,
  type GatewayCredentials,
} from './client.js';
export { PayError, PaygateError, type ErrorCode, type PayErrorReason } from './errors.js';
export { isPaymentId, parsePaymentLink } from './links.js';
export type { PayOptions } from './pay.js';
export { DEFAULT_RETRY, MAX_RETRY_AFTER_MS, type FetchLike, type RetryOptions, type Sleep } from '@paygate/client-core';
export { performWalletRpc, SUPPORTED_METHODS, type Eip1193Provider, type Namespace, type Signers } from './signers.js';
export type {
  SolanaSigner,
  SolanaSignTransactionFeature,
  SolanaStandardWallet,
  StandardWalletAccount,
} from './solana.js';
export {
  collectDataOf,
  type Action,
  type Amount,
  type CancelPaymentResponse,
  type CollectData,
  type ConfirmPaymentRequest,
  type ConfirmResult,
  type FetchActionRequest,
  type FetchActionResponse,
  type GetPaymentOptionsRequest,
  type GetPaymentOptionsResponse,
  type PayableOption,
  type PaymentInfo,
  type PaymentOption,
  type PaymentOptions,
  type PaymentFailureCode,
  type PaymentStatus,
  type PaymentStatusResponse,
  type UnavailableNetwork,
  type WalletRpcAction,
} from './types.js';
export {
  DEFAULT_MAX_POLL_MS,
  DEFAULT_POLL_MS,
  PaygateWallet,
  type GetOptionsInput,
  type OptionsRequestOptions,
  type PaygateWalletOptions,
  type RequestOptions,
  type StatusOptions,
  type WaitForFinalOptions,
} from './wallet.js';

export type { components, operations, paths } from './generated/gateway.js';
export {
  buildActionItemTypeValues,
  collectDataFieldTypeValues,
  errorCodeValues,
  paymentStatusValues,
  walletRpcActionItemTypeValues,
} from './generated/gateway.js';
