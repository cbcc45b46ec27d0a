/**
 * @paygate/sdk-wallet: the contract types of the gateway API. The typed client and the payment flow build on
 * these (see the package README).
 */
export type { components, operations, paths } from './generated/gateway.js';
export { errorCodeValues, paymentStatusValues } from './generated/gateway.js';
