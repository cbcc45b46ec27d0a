import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { AuditDeps } from '../../audit/auditLog.js';
import type { StatusReads } from '../../db/queries/paymentStatus.js';
import type { operations } from '../../generated/merchant.js';
import { contractRouter } from '../../http/operations.js';
import type { InvoiceDeps } from '../../invoices/merchantInvoices.js';
import type { MerchantDeps } from '../../payments/merchantPayments.js';
import type { RefundDeps } from '../../settlement/refunds.js';
import { cancelPaymentHandler } from './cancelPayment.js';
import { cancelPaymentAliasHandler } from './cancelPaymentAlias.js';
import { cancelRefundHandler } from './cancelRefund.js';
import { createPaymentHandler } from './createPayment.js';
import { createPaymentAliasHandler } from './createPaymentAlias.js';
import { getFeeBalanceHandler } from './getFeeBalance.js';
import { getPaymentHandler } from './getPayment.js';
import { getPaymentStatusHandler } from './getPaymentStatus.js';
import { getPayoutHandler } from './getPayout.js';
import * as invoices from './invoiceHandlers.js';
import { getSettlementBalancesHandler } from './getSettlementBalances.js';
import { listPaymentsHandler } from './listPayments.js';
import { listPaymentsAliasHandler } from './listPaymentsAlias.js';
import { listPayoutsHandler } from './listPayouts.js';
import { refundPaymentHandler } from './refundPayment.js';
import { simulatePaymentHandler } from './simulatePayment.js';
import { paymentLinkHandlers } from './merchantLinks.js';

/** What the merchant interface's handlers read, each its own part of it (a Runtime has all of it). */
export type MerchantRouterDeps = MerchantDeps &
  InvoiceDeps &
  RefundDeps &
  AuditDeps &
  AccountsDeps & {
    /** The status reads' batcher (db/queries/paymentStatus.ts). */
    statusReads: StatusReads;
    /** The per-key rate limit, shared with the dashboard's router (http/rateLimit.ts). */
    merchantKeyLimit: RequestHandler;
  };

/**
 * The merchant interface, by operation (http/operations.ts). Mounted after the contract validator, so handlers get
 * validated input; authentication ran before it (http/merchantAuth.ts).
 */
export function merchantRouter(deps: MerchantRouterDeps): RequestHandler {
  const status = getPaymentStatusHandler(deps);
  const listAlias = listPaymentsAliasHandler(deps);
  // After the schema, before any resource lookup (docs/decisions.md §2); limited per API key (§6).
  return contractRouter<operations>('merchant', [deps.merchantKeyLimit], {
    createPayment: createPaymentHandler(deps),
    createPaymentAlias: createPaymentAliasHandler(deps),
    getPayment: getPaymentHandler(deps),
    getPaymentStatus: status,
    getPaymentStatusAlias: status,
    listPayments: listPaymentsHandler(deps),
    listPaymentsAlias: listAlias,
    listMerchantPaymentsAlias: listAlias,
    cancelPayment: cancelPaymentHandler(deps),
    cancelPaymentAlias: cancelPaymentAliasHandler(deps),
    refundPayment: refundPaymentHandler(deps),
    simulatePayment: simulatePaymentHandler(deps),
    listPayouts: listPayoutsHandler(deps),
    getPayout: getPayoutHandler(deps),
    getSettlementBalances: getSettlementBalancesHandler(deps),
    getFeeBalance: getFeeBalanceHandler(deps),
    cancelRefund: cancelRefundHandler(deps),
    ...paymentLinkHandlers(deps),
    createInvoice: invoices.createInvoiceHandler(deps),
    listInvoices: invoices.listInvoicesHandler(deps),
    getInvoice: invoices.getInvoiceHandler(deps),
    voidInvoice: invoices.voidInvoiceHandler(deps),
    getInvoiceSequence: invoices.getInvoiceSequenceHandler(deps),
    updateInvoiceSequence: invoices.updateInvoiceSequenceHandler(deps),
  });
}
