import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { contractRouter } from '../../http/operations.js';
import type { Runtime } from '../../runtime.js';
import { cancelPaymentHandler } from './cancelPayment.js';
import { cancelPaymentAliasHandler } from './cancelPaymentAlias.js';
import { cancelRefundHandler } from './cancelRefund.js';
import { createPaymentHandler } from './createPayment.js';
import { createPaymentAliasHandler } from './createPaymentAlias.js';
import { getFeeBalanceHandler } from './getFeeBalance.js';
import { getPaymentHandler } from './getPayment.js';
import { getPaymentStatusHandler } from './getPaymentStatus.js';
import { getPayoutHandler } from './getPayout.js';
import { getSettlementBalancesHandler } from './getSettlementBalances.js';
import { listPaymentsHandler } from './listPayments.js';
import { listPaymentsAliasHandler } from './listPaymentsAlias.js';
import { listPayoutsHandler } from './listPayouts.js';
import { refundPaymentHandler } from './refundPayment.js';
import { simulatePaymentHandler } from './simulatePayment.js';

/**
 * The merchant interface, by operation (http/operations.ts). Mounted after the contract validator, so handlers get
 * validated input; authentication ran before it (http/merchantAuth.ts).
 */
export function merchantRouter(runtime: Runtime): RequestHandler {
  const status = getPaymentStatusHandler(runtime);
  const listAlias = listPaymentsAliasHandler(runtime);
  // After the schema, before any resource lookup (docs/decisions.md §2); limited per API key (§6).
  return contractRouter<operations>('merchant', [runtime.merchantKeyLimit], {
    createPayment: createPaymentHandler(runtime),
    createPaymentAlias: createPaymentAliasHandler(runtime),
    getPayment: getPaymentHandler(runtime),
    getPaymentStatus: status,
    getPaymentStatusAlias: status,
    listPayments: listPaymentsHandler(runtime),
    listPaymentsAlias: listAlias,
    listMerchantPaymentsAlias: listAlias,
    cancelPayment: cancelPaymentHandler(runtime),
    cancelPaymentAlias: cancelPaymentAliasHandler(runtime),
    refundPayment: refundPaymentHandler(runtime),
    simulatePayment: simulatePaymentHandler(runtime),
    listPayouts: listPayoutsHandler(runtime),
    getPayout: getPayoutHandler(runtime),
    getSettlementBalances: getSettlementBalancesHandler(runtime),
    getFeeBalance: getFeeBalanceHandler(runtime),
    cancelRefund: cancelRefundHandler(runtime),
  });
}
