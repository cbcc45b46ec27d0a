/**
 * @paygate/sdk-merchant: the contract types of the merchant API and its webhooks. The typed client builds on
 * these (see the package README).
 */
export type { components, operations, paths, webhooks } from './generated/merchant.js';
export {
  errorCodeValues,
  merchantPaymentStatusValues,
  paymentStatusValues,
  webhookEventTypeValues,
} from './generated/merchant.js';
