/**
 * Invoices (issue 35 §3, docs/decisions.md §30.9–§30.12): create, read, list and void, always within one merchant
 * and one mode, like payments. An invoice's total is fixed by its lines when created; its status is derived.
 */
import type { Database } from '../db/connect.js';
import type { SecretBox } from '../crypto/secretBox.js';
import {
  findInvoice,
  insertInvoice,
  listInvoices,
  markInvoiceVoided,
  paymentsOfInvoices,
  takeNextNumber,
  type InvoicePaymentRow,
  type InvoiceRow,
} from '../db/queries/invoiceRows.js';
import { currencyOfUnit } from '../currencies.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import { newId } from '../ids.js';
import type { PricedCurrencies } from '../quotes/index.js';
import { formatNumber, type InvoiceScope } from './numbering.js';
import { amountsOf, statusOf } from './status.js';

export type CreateInvoiceRequest = components['schemas']['CreateInvoiceRequest'];
export type Invoice = components['schemas']['Invoice'];
export type InvoiceList = components['schemas']['InvoiceList'];
export type InvoiceLineItem = components['schemas']['InvoiceLineItem'];
export type InvoiceBuyer = components['schemas']['InvoiceBuyer'];

export interface InvoiceDeps {
  db: Database;
  now: () => number;
  secretBox: SecretBox;
  config: { publicBaseUrl: string };
  pricedCurrencies?: PricedCurrencies;
}

const SECOND = 1000;
/** A payment's amount rule (payments/merchantPayments.ts): at most 15 digits, so an invoice's total is one payment. */
const MAX_TOTAL = 10n ** 15n - 1n;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0B-\x1F\x7F]/;

function invalid(message: string, param?: string): ApiError {
  return new ApiError('params_validation', message, param ? { param } : {});
}

export function invoiceNotFound(id: string): ApiError {
  return new ApiError('invalid_params', `No invoice with id ${id}.`, { status: 404 });
}

const buyerContext = (id: string) => `invoices.buyer_sealed:${id}`;

export function buyerOf(deps: Pick<InvoiceDeps, 'secretBox'>, row: InvoiceRow): InvoiceBuyer | null {
  return row.buyer_sealed === null
    ? null
    : (JSON.parse(deps.secretBox.open(row.buyer_sealed, buyerContext(row.id))) as InvoiceBuyer);
}

export function invoiceUrlOf(publicBaseUrl: string, invoiceId: string): string {
  return `${publicBaseUrl}/i/${invoiceId}`;
}

/** The rules the schema cannot express (the total, the currency dataset, the clock), and the schema's again. */
function checkCreate(deps: InvoiceDeps, scope: InvoiceScope, body: CreateInvoiceRequest): bigint {
  if (!currencyOfUnit(body.currency)) throw invalid(`currency ${body.currency} is not an active ISO 4217 currency.`);
  const priced = deps.pricedCurrencies?.(scope.live);
  const code = body.currency.slice('iso4217/'.length);
  if (priced && !priced.includes(code)) {
    throw invalid(
      `currency ${body.currency}: no ${scope.live ? 'live' : 'test'} chain of this server can price ${code}.`,
    );
  }
  if (body.lineItems.length < 1 || body.lineItems.length > 100) throw invalid('lineItems: 1 to 100 lines.');
  let total = 0n;
  for (const [i, item] of body.lineItems.entries()) {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(item.unitAmount)) throw invalid(`lineItems[${i}].unitAmount: minor units.`);
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1 || item.quantity > 1_000_000)
      throw invalid(`lineItems[${i}].quantity: 1 to 1000000.`);
    if (CONTROL.test(item.name)) throw invalid(`lineItems[${i}].name: no control characters.`);
    total += BigInt(item.quantity) * BigInt(item.unitAmount);
  }
  if (total < 1n || total > MAX_TOTAL) {
    throw invalid(`The invoice's total (${total} minor units) must be between 1 and ${MAX_TOTAL}.`, 'lineItems');
  }
  if (body.dueAt * SECOND <= deps.now()) throw invalid('dueAt must be in the future.', 'dueAt');
  if (body.notes !== undefined && CONTROL.test(body.notes)) throw invalid('notes: no control characters but newlines.');
  return total;
}

export function toInvoice(
  deps: Pick<InvoiceDeps, 'secretBox' | 'now' | 'config'>,
  row: InvoiceRow,
  payments: readonly InvoicePaymentRow[],
): Invoice {
  const amounts = amountsOf(row, payments);
  const money = (value: bigint) => ({ unit: row.amount_unit, value: value.toString() });
  return {
    invoiceId: row.id,
    number: row.number,
    live: row.live,
    status: statusOf(row, amounts, deps.now()),
    amount: money(amounts.total),
    amountPaid: money(amounts.paid),
    amountDue: money(amounts.due),
    lineItems: JSON.parse(row.line_items) as InvoiceLineItem[],
    dueAt: Math.floor(row.due_at / SECOND),
    buyer: buyerOf(deps, row),
    notes: row.notes,
    createdAt: Math.floor(row.created_at / SECOND),
    voidedAt: row.voided_at === null ? null : Math.floor(row.voided_at / SECOND),
    url: invoiceUrlOf(deps.config.publicBaseUrl, row.id),
    payments: payments.map((p) => ({
      paymentId: p.id,
      status: p.status,
      amount: { unit: p.amount_unit, value: p.amount_value },
    })),
  };
}

/** Creates an invoice numbered from the merchant's sequence, in one transaction with the number's allocation. */
export async function createInvoice(
  deps: InvoiceDeps,
  scope: InvoiceScope,
  body: CreateInvoiceRequest,
): Promise<Invoice> {
  const total = checkCreate(deps, scope, body);
  const id = newId.invoice();
  const lineItems = body.lineItems.map(({ name, quantity, unitAmount }) => ({ name, quantity, unitAmount }));
  const buyer = body.buyer && (body.buyer.name !== undefined || body.buyer.email !== undefined) ? body.buyer : null;
  const row = await deps.db.knex.transaction(async (trx) => {
    const { prefix, number } = await takeNextNumber(trx, scope.merchantId, scope.live);
    const row: InvoiceRow = {
      id,
      merchant_id: scope.merchantId,
      live: scope.live,
      number: formatNumber(prefix, number),
      amount_unit: body.currency,
      amount_value: total.toString(),
      line_items: JSON.stringify(lineItems),
      due_at: body.dueAt * SECOND,
      buyer_sealed: buyer ? deps.secretBox.seal(JSON.stringify(buyer), buyerContext(id)) : null,
      notes: body.notes ?? null,
      created_at: deps.now(),
      voided_at: null,
    };
    await insertInvoice(trx, row);
    return row;
  });
  return toInvoice(deps, row, []);
}

/** The invoice if it is the scope's, else 404 (another merchant's or mode's is invisible, as for payments). */
export async function readInvoiceRow(deps: InvoiceDeps, scope: InvoiceScope, id: string): Promise<InvoiceRow> {
  const row = await findInvoice(deps.db.knex, id);
  if (!row || row.merchant_id !== scope.merchantId || row.live !== scope.live) throw invoiceNotFound(id);
  return row;
}

export async function readInvoice(deps: InvoiceDeps, scope: InvoiceScope, id: string): Promise<Invoice> {
  const row = await readInvoiceRow(deps, scope, id);
  const payments = await paymentsOfInvoices(deps.db.knex, [row.id]);
  return toInvoice(deps, row, payments.get(row.id)!);
}

export async function listMerchantInvoices(
  deps: InvoiceDeps,
  scope: InvoiceScope,
  query: { limit?: number; startingAfter?: string },
): Promise<InvoiceList> {
  const limit = query.limit ?? 20;
  const after = query.startingAfter === undefined ? null : await readInvoiceRow(deps, scope, query.startingAfter);
  const rows = await listInvoices(deps.db.knex, scope, limit + 1, after);
  const page = rows.slice(0, limit);
  const payments = await paymentsOfInvoices(
    deps.db.knex,
    page.map((r) => r.id),
  );
  const hasMore = rows.length > limit;
  return {
    data: page.map((r) => toInvoice(deps, r, payments.get(r.id)!)),
    hasMore,
    nextCursor: hasMore ? page[page.length - 1]!.id : null,
  };
}

/** Voids an unpaid invoice; again on a void one changes nothing; a paid one is `invalid_state`. */
export async function voidInvoice(deps: InvoiceDeps, scope: InvoiceScope, id: string): Promise<Invoice> {
  await readInvoiceRow(deps, scope, id);
  const { row, payments } = await deps.db.knex.transaction(async (trx) => {
    const row = (await findInvoice(trx, id, { forUpdate: true }))!;
    const payments = (await paymentsOfInvoices(trx, [id])).get(id)!;
    if (row.voided_at !== null) return { row, payments };
    const amounts = amountsOf(row, payments);
    if (amounts.paid >= amounts.total) {
      throw new ApiError('invalid_state', `Invoice ${row.number} is paid; it cannot be voided.`);
    }
    const now = deps.now();
    await markInvoiceVoided(trx, id, now);
    return { row: { ...row, voided_at: now }, payments };
  });
  return toInvoice(deps, row, payments);
}
