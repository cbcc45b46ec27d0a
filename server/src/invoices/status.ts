/**
 * An invoice's status and amounts, derived on every read (docs/decisions.md §30.10): nothing about payment progress
 * is stored on the invoice, so it can never disagree with its payments.
 */
import type { InvoicePaymentRow, InvoiceRow } from '../db/queries/invoiceRows.js';
import type { components } from '../generated/merchant.js';

export type InvoiceStatus = components['schemas']['InvoiceStatus'];

export interface InvoiceAmounts {
  total: bigint;
  paid: bigint;
  /** What is still to pay, never below zero. */
  due: bigint;
  /** Being paid right now: its outcome may change what is due. */
  processing: bigint;
}

export function amountsOf(invoice: InvoiceRow, payments: readonly InvoicePaymentRow[]): InvoiceAmounts {
  const total = BigInt(invoice.amount_value);
  let paid = 0n;
  let processing = 0n;
  for (const p of payments) {
    // Every payment of an invoice is in the invoice's currency (payInvoice makes them); a guard, not a conversion.
    if (p.amount_unit !== invoice.amount_unit) continue;
    if (p.status === 'succeeded') paid += BigInt(p.amount_value);
    else if (p.status === 'processing') processing += BigInt(p.amount_value);
  }
  return { total, paid, processing, due: paid >= total ? 0n : total - paid };
}

/**
 * Money that arrived wins: an invoice covered by payments is `paid` even if voided meanwhile (a payment open when it
 * was voided may still complete). Past its due time an uncovered invoice is `overdue`, partly paid or not; the
 * amounts say how much is paid.
 */
export function statusOf(invoice: InvoiceRow, amounts: InvoiceAmounts, now: number): InvoiceStatus {
  if (amounts.paid >= amounts.total) return 'paid';
  if (invoice.voided_at !== null) return 'void';
  if (now >= invoice.due_at) return 'overdue';
  if (amounts.paid > 0n) return 'partially_paid';
  return 'open';
}
