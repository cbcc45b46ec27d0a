import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { contractRouter } from '../../http/operations.js';
import { refundClaimRateLimit } from '../../http/claimRateLimit.js';
import { gatewayRateLimit } from '../../http/gatewayAuth.js';
import type { Runtime } from '../../runtime.js';
import { cancelPaymentHandler } from './cancelPayment.js';
import { claimRefundHandler } from './claimRefund.js';
import { confirmPaymentHandler } from './confirmPayment.js';
import { fetchActionHandler } from './fetchAction.js';
import { getDepositOptionsHandler } from './getDepositOptions.js';
import { getPaymentOptionsHandler } from './getPaymentOptions.js';
import { getPaymentHandler } from './getPayment.js';
import { getPaymentStatusHandler } from './getPaymentStatus.js';
import { getSolanaPayIconHandler } from './getSolanaPayIcon.js';
import { getSolanaPayLabelHandler } from './getSolanaPayLabel.js';
import { lookupRefundClaimHandler } from './lookupRefundClaim.js';
import { postSolanaPayTransactionHandler } from './postSolanaPayTransaction.js';

/**
 * The gateway, by operation (http/operations.ts). Mounted after the contract validator, so handlers get validated
 * input; authentication ran before it (http/gatewayAuth.ts).
 */
export function gatewayRouter(runtime: Runtime): RequestHandler {
  const notifier = runtime.paymentNotifier;
  const claimLimit = refundClaimRateLimit(runtime);
  // After the schema, before any resource lookup (docs/decisions.md §2); limited per credential (§6).
  return contractRouter<operations>('gateway', [gatewayRateLimit(runtime)], {
    getPayment: getPaymentHandler(runtime),
    getPaymentStatus: getPaymentStatusHandler(runtime, notifier),
    cancelPayment: cancelPaymentHandler(runtime),
    getPaymentOptions: getPaymentOptionsHandler(runtime),
    getDepositOptions: getDepositOptionsHandler(runtime),
    fetchAction: fetchActionHandler(runtime),
    confirmPayment: confirmPaymentHandler(runtime, notifier),
    getSolanaPayLabel: getSolanaPayLabelHandler(runtime),
    postSolanaPayTransaction: postSolanaPayTransactionHandler(runtime),
    getSolanaPayIcon: getSolanaPayIconHandler(),
    lookupRefundClaim: [claimLimit, lookupRefundClaimHandler(runtime)],
    claimRefund: [claimLimit, claimRefundHandler(runtime)],
  });
}
