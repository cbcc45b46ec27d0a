import { Router } from 'express';
import { merchantKeyRateLimit } from '../../http/rateLimit.js';
import type { Runtime } from '../../runtime.js';
import { cancelPaymentHandler } from './cancelPayment.js';
import { cancelRefundHandler } from './cancelRefund.js';
import { createPaymentHandler } from './createPayment.js';
import { getFeeBalanceHandler } from './getFeeBalance.js';
import { getPaymentHandler } from './getPayment.js';
import { getPaymentStatusHandler } from './getPaymentStatus.js';
import { getPayoutHandler } from './getPayout.js';
import { getSettlementBalancesHandler } from './getSettlementBalances.js';
import { listPaymentsHandler } from './listPayments.js';
import { listPayoutsHandler } from './listPayouts.js';
import { refundPaymentHandler } from './refundPayment.js';
import { simulatePaymentHandler } from './simulatePayment.js';

/**
 * The merchant interface. Mounted after the contract validator, so handlers get validated input; authentication
 * ran before it (http/merchantAuth.ts). Strict and case-sensitive like the validator's path matching, so no spelling
 * of a path can reach a handler that the validator and the authentication did not see.
 */
export function merchantRouter(runtime: Runtime): Router {
  const router = Router({ caseSensitive: true, strict: true });
  // After the schema, before any resource lookup (docs/decisions.md §2); limited per API key (§6).
  router.use(merchantKeyRateLimit(runtime));

  const status = getPaymentStatusHandler(runtime);
  const list = listPaymentsHandler(runtime);
  router.post('/v1/merchant/payment', createPaymentHandler(runtime));
  router.get('/v1/merchant/payment/:id', getPaymentHandler(runtime));
  router.get('/v1/merchant/payment/:id/status', status);
  router.get('/v1/payments/:id/status', status);
  router.get('/v1/merchant/payments', list);
  router.get('/v1/payments', list);
  router.post('/v1/merchant/payment/:id/cancel', cancelPaymentHandler(runtime));
  router.post('/v1/merchant/payment/:id/refund', refundPaymentHandler(runtime));
  router.post('/v1/merchant/test/payment/:id/simulate', simulatePaymentHandler(runtime));
  router.get('/v1/merchant/payouts', listPayoutsHandler(runtime));
  router.get('/v1/merchant/payouts/:id', getPayoutHandler(runtime));
  router.get('/v1/merchant/settlements', getSettlementBalancesHandler(runtime));
  router.get('/v1/merchant/fees', getFeeBalanceHandler(runtime));
  router.post('/v1/merchant/refunds/:id/cancel', cancelRefundHandler(runtime));
  return router;
}
