import { Router } from 'express';
import { refundClaimRateLimit } from '../../http/claimRateLimit.js';
import { gatewayRateLimit } from '../../http/gatewayAuth.js';
import { PaymentNotifier } from '../../payments/paymentWatch.js';
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

const notifiers = new WeakMap<Runtime, PaymentNotifier>();

/** The runtime's notifier, hooked into its lifecycle once however many apps share the runtime. */
export function paymentNotifierOf(runtime: Runtime): PaymentNotifier {
  let notifier = notifiers.get(runtime);
  if (!notifier) {
    notifier = new PaymentNotifier();
    runtime.eventHooks.push(notifier.hook);
    notifiers.set(runtime, notifier);
  }
  return notifier;
}

/**
 * The gateway. Mounted after the contract validator, so handlers get validated input; authentication ran before
 * it (http/gatewayAuth.ts). Strict and case-sensitive like the validator's path matching.
 */
export function gatewayRouter(runtime: Runtime): Router {
  const router = Router({ caseSensitive: true, strict: true });
  // After the schema, before any resource lookup (docs/decisions.md §2); limited per credential (§6).
  router.use(gatewayRateLimit(runtime));
  const notifier = paymentNotifierOf(runtime);
  router.get('/v1/gateway/payment/:id', getPaymentHandler(runtime));
  router.get('/v1/gateway/payment/:id/status', getPaymentStatusHandler(runtime, notifier));
  router.post('/v1/gateway/payment/:id/cancel', cancelPaymentHandler(runtime));
  router.post('/v1/gateway/payment/:id/options', getPaymentOptionsHandler(runtime));
  router.get('/v1/gateway/payment/:id/deposit', getDepositOptionsHandler(runtime));
  router.post('/v1/gateway/payment/:id/fetch', fetchActionHandler(runtime));
  router.post('/v1/gateway/payment/:id/confirm', confirmPaymentHandler(runtime, notifier));
  router.get('/v1/gateway/payment/:id/solana-pay', getSolanaPayLabelHandler(runtime));
  router.post('/v1/gateway/payment/:id/solana-pay', postSolanaPayTransactionHandler(runtime));
  router.get('/v1/gateway/solana-pay/icon.svg', getSolanaPayIconHandler());
  const claimLimit = refundClaimRateLimit(runtime);
  router.post('/v1/gateway/refund-claims/lookup', claimLimit, lookupRefundClaimHandler(runtime));
  router.post('/v1/gateway/refund-claims/claim', claimLimit, claimRefundHandler(runtime));
  return router;
}
