import type { RequestHandler } from 'express';
import type { BuyerPaymentDeps } from '../../checkout/buyerPayments.js';
import type { Config } from '../../config.js';
import type { operations } from '../../generated/gateway.js';
import { contractRouter } from '../../http/operations.js';
import { refundClaimRateLimit } from '../../http/claimRateLimit.js';
import { gatewayRateLimit } from '../../http/gatewayAuth.js';
import type { PayInvoiceDeps } from '../../invoices/pay.js';
import type { PaymentNotifier } from '../../payments/paymentWatch.js';
import type { PosSaleDeps } from '../../pos/sales.js';
import { cancelPaymentHandler } from './cancelPayment.js';
import type { CheckoutSource } from './checkoutOf.js';
import { claimRefundHandler } from './claimRefund.js';
import { confirmPaymentHandler } from './confirmPayment.js';
import { createPosPaymentHandler } from './createPosPayment.js';
import { fetchActionHandler } from './fetchAction.js';
import { getDepositOptionsHandler } from './getDepositOptions.js';
import { getPaymentOptionsHandler } from './getPaymentOptions.js';
import { getPaymentHandler } from './getPayment.js';
import { getPaymentStatusHandler } from './getPaymentStatus.js';
import { getPosPaymentHandler } from './getPosPayment.js';
import { getPosTerminalHandler } from './getPosTerminal.js';
import { getSolanaPayIconHandler } from './getSolanaPayIcon.js';
import { getSolanaPayLabelHandler } from './getSolanaPayLabel.js';
import { getPublicInvoiceHandler, invoicePageRateLimit, payInvoiceHandler } from './invoicePage.js';
import { lookupRefundClaimHandler } from './lookupRefundClaim.js';
import { postSolanaPayTransactionHandler } from './postSolanaPayTransaction.js';

/** What the gateway's handlers read, each its own part of it (a Runtime has all of it). */
export type GatewayRouterDeps = BuyerPaymentDeps &
  CheckoutSource &
  PosSaleDeps &
  PayInvoiceDeps & {
    /** Wakes the long polls of status and confirm when a payment changes. */
    paymentNotifier: PaymentNotifier;
    config: Pick<Config, 'rateLimit' | 'publicBaseUrl'>;
  };

/**
 * The gateway, by operation (http/operations.ts). Mounted after the contract validator, so handlers get validated
 * input; authentication ran before it (http/gatewayAuth.ts).
 */
export function gatewayRouter(deps: GatewayRouterDeps): RequestHandler {
  const notifier = deps.paymentNotifier;
  const claimLimit = refundClaimRateLimit(deps);
  const invoiceLimit = invoicePageRateLimit(deps);
  // After the schema, before any resource lookup (docs/decisions.md §2); limited per credential (§6).
  return contractRouter<operations>('gateway', [gatewayRateLimit(deps)], {
    getPayment: getPaymentHandler(deps),
    getPaymentStatus: getPaymentStatusHandler(deps, notifier),
    cancelPayment: cancelPaymentHandler(deps),
    getPaymentOptions: getPaymentOptionsHandler(deps),
    getDepositOptions: getDepositOptionsHandler(deps),
    fetchAction: fetchActionHandler(deps),
    confirmPayment: confirmPaymentHandler(deps, notifier),
    getSolanaPayLabel: getSolanaPayLabelHandler(deps),
    postSolanaPayTransaction: postSolanaPayTransactionHandler(deps),
    getSolanaPayIcon: getSolanaPayIconHandler(),
    lookupRefundClaim: [claimLimit, lookupRefundClaimHandler(deps)],
    claimRefund: [claimLimit, claimRefundHandler(deps)],
    getPosTerminal: getPosTerminalHandler(),
    createPosPayment: createPosPaymentHandler(deps),
    getPosPayment: getPosPaymentHandler(deps),
    getPublicInvoice: [invoiceLimit, getPublicInvoiceHandler(deps)],
    payInvoice: [invoiceLimit, payInvoiceHandler(deps)],
  });
}
