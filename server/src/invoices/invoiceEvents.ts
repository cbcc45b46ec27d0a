/**
 * Invoice webhooks (docs/decisions.md §30.12): `invoice.partially_paid` and `invoice.paid` when a payment of an
 * invoice succeeds, each only to an endpoint that names the type. They are
 * deliveries carrying their own signed envelope, like a dashboard test event: the outbox (`events`) is the payments'
 * versioned history, one row per payment version, and an invoice event is no version of a payment.
 */
import type { Knex } from 'knex';
import { findInvoice, paymentsOfInvoices, type InvoicePaymentRow, type InvoiceRow } from '../db/queries/invoiceRows.js';
import { findActiveEndpoint } from '../db/queries/webhooks.js';
import type { components } from '../generated/merchant.js';
import { newId } from '../ids.js';
import type { EventHook } from '../payments/lifecycle.js';
import { iso, WEBHOOK_API_VERSION } from '../payments/snapshot.js';
import { scheduleDelivery } from '../webhooks/delivery.js';
import type { WebhookDeps } from '../webhooks/deliveryDeps.js';
import { invoiceUrlOf } from './merchantInvoices.js';
import { amountsOf, statusOf } from './status.js';

export type InvoiceWebhookEvent = components['schemas']['InvoiceWebhookEvent'];
export type InvoiceEventType = components['schemas']['InvoiceEventType'];

export type InvoiceEventDeps = WebhookDeps & { config: { publicBaseUrl: string } };

/** Schedules the event for the invoice's merchant and mode, in `trx`, if its endpoint subscribes to the type. */
export async function sendInvoiceEvent(
  deps: InvoiceEventDeps,
  trx: Knex.Transaction,
  row: InvoiceRow,
  payments: readonly InvoicePaymentRow[],
  type: InvoiceEventType,
  paymentId: string,
): Promise<void> {
  const endpoint = await findActiveEndpoint(trx, row.merchant_id, row.live ? 'live' : 'test');
  if (!endpoint || !endpoint.enabled || !endpoint.event_types.includes(type)) return;
  const now = deps.now();
  const amounts = amountsOf(row, payments);
  const money = (value: bigint) => ({ unit: row.amount_unit, value: value.toString() });
  const envelope: InvoiceWebhookEvent = {
    id: newId.event(),
    type,
    api_version: WEBHOOK_API_VERSION,
    created_at: iso(now),
    data: {
      invoice_id: row.id,
      number: row.number,
      live: row.live,
      status: statusOf(row, amounts, now),
      amount: money(amounts.total),
      amount_paid: money(amounts.paid),
      amount_due: money(amounts.due),
      due_at: iso(row.due_at),
      url: invoiceUrlOf(deps.config.publicBaseUrl, row.id),
      payment_id: paymentId,
    },
  };
  await scheduleDelivery(
    deps,
    trx,
    endpoint,
    { id: envelope.id, type, payment_id: paymentId, payload: JSON.stringify(envelope) },
    'event',
  );
}

/**
 * The lifecycle's event hook: a succeeded payment of an invoice sends `invoice.paid` or `invoice.partially_paid`,
 * inside the payment's transaction. The invoice's row is locked (after the payment's, the one order every invoice
 * writer keeps), so of two of its payments succeeding at once the second sees the first and says `paid`.
 */
export function invoiceEventHook(deps: InvoiceEventDeps): EventHook {
  const hook: EventHook = async (trx, event) => {
    if (event.type !== 'payment.succeeded') return;
    const link = (await trx('payments').where({ id: event.payment_id }).first('invoice_id')) as
      { invoice_id: string | null } | undefined;
    if (!link?.invoice_id) return;
    const row = await findInvoice(trx, link.invoice_id, { forUpdate: true });
    if (!row) return;
    const payments = (await paymentsOfInvoices(trx, [row.id])).get(row.id)!;
    const amounts = amountsOf(row, payments);
    const type = amounts.paid >= amounts.total ? 'invoice.paid' : 'invoice.partially_paid';
    await sendInvoiceEvent(deps, trx, row, payments, type, event.payment_id);
  };
  // A created payment never succeeds in its own transaction.
  hook.onCreated = 'nothing';
  return hook;
}
