/** Invoice requests over the merchant harness (test/merchant/harness.ts), for the invoice tests of each surface. */
import { expectJson, type Harness } from './harness.js';

export interface InvoiceJson {
  invoiceId: string;
  number: string;
  status: string;
  amount: { unit: string; value: string };
  amountPaid: { unit: string; value: string };
  amountDue: { unit: string; value: string };
  payments: { paymentId: string; status: string; amount: { unit: string; value: string } }[];
  url: string;
  buyer: { name?: string; email?: string } | null;
  voidedAt: number | null;
}

/** Two lines, 900.00 in all (USD minor units), due a day after the harness clock's now. */
export function invoiceBody(h: Harness, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    currency: 'iso4217/USD',
    lineItems: [
      { name: 'Website design', quantity: 2, unitAmount: '30000' },
      { name: 'Hosting, one year', quantity: 1, unitAmount: '30000' },
    ],
    dueAt: Math.floor(h.clock.now() / 1000) + 86_400,
    buyer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    notes: 'Thank you.\nPayable within a day.',
    ...extra,
  };
}

export async function createInvoice(
  h: Harness,
  extra: Record<string, unknown> = {},
  options: { live?: boolean } = {},
): Promise<InvoiceJson> {
  return expectJson<InvoiceJson>(
    await h.call('POST', '/v1/merchant/invoices', { body: invoiceBody(h, extra), live: options.live }),
    201,
  );
}

export async function getInvoice(h: Harness, id: string): Promise<InvoiceJson> {
  return expectJson<InvoiceJson>(await h.call('GET', `/v1/merchant/invoices/${id}`), 200);
}

/** The invoice page's "Pay" (no credentials), optionally for part of what is due. */
export async function payInvoice(h: Harness, id: string, amount?: string): Promise<Response> {
  return fetch(`${h.server.url}/v1/gateway/invoices/${id}/pay`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(amount === undefined ? {} : { amount }),
  });
}
