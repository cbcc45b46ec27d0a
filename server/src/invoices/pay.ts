/**
 * The invoice page's "Pay" button and what the page shows (docs/decisions.md §30.11). No credentials: the invoice id
 * is the capability, as a payment id is for the hosted checkout.
 */
import { findMerchant } from '../db/queries/accounts.js';
import { findInvoice, paymentsOfInvoices, setPaymentInvoice } from '../db/queries/invoiceRows.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { gatewayUrlOf, DEFAULT_WINDOW_MS } from '../payments/merchantPayments.js';
import { createPayment, type LifecycleDeps } from '../payments/lifecycle.js';
import { invoiceNotFound, toInvoice, type InvoiceDeps } from './merchantInvoices.js';
import { amountsOf, statusOf } from './status.js';

export type PublicInvoice = components['schemas']['PublicInvoice'];
export type PayInvoiceResponse = components['schemas']['PayInvoiceResponse'];

export type PayInvoiceDeps = InvoiceDeps & LifecycleDeps;

const SECOND = 1000;
/** An open payment about to expire is not handed out again: the buyer needs time to pay it. */
const MIN_REMAINING_MS = 5 * 60 * SECOND;

export async function readPublicInvoice(deps: InvoiceDeps, id: string): Promise<PublicInvoice> {
  const row = await findInvoice(deps.db.knex, id);
  if (!row) throw invoiceNotFound(id);
  const [payments, merchant] = await Promise.all([
    paymentsOfInvoices(deps.db.knex, [id]),
    findMerchant(deps.db.knex, row.merchant_id),
  ]);
  const ofInvoice = payments.get(id)!;
  // The page shows the merchant's view of the invoice, less its payments, void time and URL.
  const { invoiceId, number, live, status, amount, amountPaid, amountDue, lineItems, dueAt, buyer, notes, createdAt } =
    toInvoice(deps, row, ofInvoice);
  const { processing } = amountsOf(row, ofInvoice);
  return {
    invoiceId,
    number,
    merchantName: merchant?.name ?? '',
    // Only a logo Paygate serves: findMerchant reads anything else as none (§26.23).
    merchantLogoUrl: merchant?.icon_url ?? null,
    live,
    status,
    amount,
    amountPaid,
    amountDue,
    lineItems,
    dueAt,
    buyer,
    notes,
    createdAt,
    payable: status !== 'paid' && status !== 'void' && processing === 0n,
  };
}

/**
 * A payment for what is still due. Under the invoice's lock, so two presses at once make one payment: an open payment
 * of the invoice for exactly the amount due is handed out again. A payment being processed blocks a new one, since
 * its outcome changes what is due. Open payments for an older amount stay payable: paying one as well over-pays the
 * invoice, which is recorded as paid with `amountPaid` above the total (§30.11).
 */
export async function payInvoice(
  deps: PayInvoiceDeps,
  id: string,
  /** Part of what is due, minor units; absent: all of it. */
  part?: string,
): Promise<PayInvoiceResponse> {
  const payment = await deps.db.knex.transaction(async (trx) => {
    const row = await findInvoice(trx, id, { forUpdate: true });
    if (!row) throw invoiceNotFound(id);
    const payments = (await paymentsOfInvoices(trx, [id])).get(id)!;
    const amounts = amountsOf(row, payments);
    const now = deps.now();
    const status = statusOf(row, amounts, now);
    if (status === 'paid' || status === 'void') {
      throw new ApiError('invalid_state', `Invoice ${row.number} is ${status === 'paid' ? 'paid' : 'void'}.`);
    }
    if (amounts.processing > 0n) {
      throw new ApiError(
        'invalid_state',
        `A payment of invoice ${row.number} is being processed; try again when it ends.`,
      );
    }
    if (part !== undefined && (!/^[1-9][0-9]{0,14}$/.test(part) || BigInt(part) > amounts.due)) {
      throw new ApiError(
        'params_validation',
        `amount ${part} is not between 1 and the ${amounts.due} still due on invoice ${row.number}.`,
        { param: 'amount' },
      );
    }
    const due = part ?? amounts.due.toString();
    const open = payments.find(
      (p) =>
        p.status === 'requires_action' &&
        p.amount_unit === row.amount_unit &&
        p.amount_value === due &&
        p.expires_at - now >= MIN_REMAINING_MS,
    );
    if (open) return { id: open.id, amount: { unit: open.amount_unit, value: open.amount_value } };
    const created = await createPayment(
      deps,
      {
        merchantId: row.merchant_id,
        live: row.live,
        // The invoice's id, so the merchant's webhooks and exports name the invoice each payment pays.
        referenceId: row.id,
        amount: { unit: row.amount_unit, value: due },
        expiresAt: Math.ceil((now + DEFAULT_WINDOW_MS) / SECOND) * SECOND,
        successUrl: null,
        errorUrl: null,
      },
      trx,
    );
    await setPaymentInvoice(trx, created.id, row.id);
    return { id: created.id, amount: { unit: created.amount_unit, value: created.amount_value } };
  });
  return {
    paymentId: payment.id,
    gatewayUrl: gatewayUrlOf(deps.config.publicBaseUrl, payment.id),
    amount: payment.amount,
  };
}
