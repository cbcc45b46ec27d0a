/**
 * An invoice's public page (docs/decisions.md §30.11): the invoice as printed, its status, and a "Pay" form that asks
 * the gateway for a payment of what is due (or part of it) and continues into the hosted checkout. The invoice id in
 * the path is the capability; the page calls the gateway's two open invoice operations.
 */
import type { components } from '../generated/gateway.js';
import { formatMoney, parseMoney, plainMoney } from './money.js';
import './styles.css';
import { byId, messageOf, showMerchant } from '../standalone/dom.js';

type PublicInvoice = components['schemas']['PublicInvoice'];

const STATUS_TEXT: Record<PublicInvoice['status'], string> = {
  open: 'Open',
  partially_paid: 'Partially paid',
  paid: 'Paid',
  overdue: 'Overdue',
  void: 'Void',
};

const invoiceId = decodeURIComponent(location.pathname.split('/')[2] || '');
const form = byId<HTMLFormElement>('pay');
const payError = byId('pay-error');
const payButton = byId<HTMLButtonElement>('pay-button');
let current: PublicInvoice | null = null;

function fail(message: string): void {
  byId('loading').hidden = true;
  byId('invoice').hidden = true;
  byId('failed-text').textContent = message;
  byId('failed').hidden = false;
}

const day = (seconds: number) =>
  new Date(seconds * 1000).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

function cell(row: HTMLTableRowElement, text: string, numeric: boolean): void {
  const td = document.createElement('td');
  td.textContent = text;
  if (numeric) td.className = 'num';
  row.appendChild(td);
}

function show(invoice: PublicInvoice): void {
  current = invoice;
  const code = invoice.amount.unit.slice('iso4217/'.length);
  const money = (value: string) => formatMoney(value, code);
  document.title = `Invoice ${invoice.number} · ${invoice.merchantName}`;
  showMerchant(byId('merchant'), invoice.merchantName, invoice.merchantLogoUrl);
  byId('title').textContent = `Invoice ${invoice.number}`;
  const status = byId('status');
  status.textContent = STATUS_TEXT[invoice.status];
  status.className = `status status-${invoice.status}`;
  byId('test-mode').hidden = invoice.live;
  byId('issued').textContent = day(invoice.createdAt);
  byId('due').textContent = day(invoice.dueAt);
  const buyer = [invoice.buyer?.name, invoice.buyer?.email].filter(Boolean).join(' · ');
  byId('buyer').textContent = buyer;
  byId('buyer-row').hidden = buyer === '';
  const lines = byId('lines');
  lines.replaceChildren();
  for (const item of invoice.lineItems) {
    const row = document.createElement('tr');
    cell(row, item.name, false);
    cell(row, String(item.quantity), true);
    cell(row, money(item.unitAmount), true);
    cell(row, money((BigInt(item.unitAmount) * BigInt(item.quantity)).toString()), true);
    lines.appendChild(row);
  }
  byId('total').textContent = money(invoice.amount.value);
  byId('paid').textContent = money(invoice.amountPaid.value);
  byId('paid-row').hidden = invoice.amountPaid.value === '0';
  byId('amount-due').textContent = money(invoice.amountDue.value);
  byId('notes').textContent = invoice.notes ?? '';
  byId('notes-section').hidden = invoice.notes === null;
  byId('pay-currency').textContent = code;
  byId<HTMLInputElement>('pay-amount').value = plainMoney(invoice.amountDue.value, code);
  form.hidden = !invoice.payable;
  const closed = byId('pay-closed');
  closed.hidden = invoice.payable;
  closed.textContent =
    invoice.status === 'paid'
      ? 'This invoice is paid. Thank you.'
      : invoice.status === 'void'
        ? 'This invoice was voided by the merchant and cannot be paid.'
        : 'A payment of this invoice is being processed. Reload the page in a moment.';
  byId('loading').hidden = true;
  byId('invoice').hidden = false;
}

async function call(path: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`/v1/gateway/invoices/${encodeURIComponent(invoiceId)}${path}`, init);
  return { status: res.status, body: await res.json().catch(() => null) };
}

function showPayError(message: string): void {
  payButton.disabled = false;
  payError.textContent = message;
  payError.hidden = false;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!current) return;
  const code = current.amount.unit.slice('iso4217/'.length);
  const amount = parseMoney(byId<HTMLInputElement>('pay-amount').value, code);
  payError.hidden = true;
  if (amount === null || amount === '0') {
    showPayError(`Enter an amount in ${code}, for example ${plainMoney(current.amountDue.value, code)}.`);
    return;
  }
  payButton.disabled = true;
  call('/pay', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ amount }),
  }).then(
    ({ status, body }) => {
      if (status === 200) location.assign((body as { gatewayUrl: string }).gatewayUrl);
      else showPayError(messageOf(body, 'This invoice cannot be paid now; reload the page.'));
    },
    () => showPayError('The server could not be reached; try again.'),
  );
});

if (invoiceId === '') fail('This link is incomplete: open the whole link the merchant sent you.');
else
  call('').then(
    ({ status, body }) =>
      status === 200 ? show(body as PublicInvoice) : fail(messageOf(body, 'This invoice cannot be shown.')),
    () => fail('The server could not be reached; reload the page to try again.'),
  );
