/**
 * The dashboard's CSV export of a merchant's payments (RFC 4180): read in keyset pages, so a large export holds one
 * page in memory at a time and the caller can stream each page before reading the next.
 */
import { findOverduePayments } from '../db/queries/payments.js';
import { paymentExportPage, paymentExportPageSize, type PaymentExportRow } from '../db/queries/paymentExportRows.js';
import { currencyOfUnit } from '../currencies.js';
import { iso } from './snapshot.js';
import { expireIfOverdue, type LifecycleDeps } from './lifecycle.js';
import { searchTermsOfQuery, type ListQuery, type MerchantScope } from './merchantPayments.js';
import type { SecretBox } from '../crypto/secretBox.js';
import { detailsOf } from './details.js';

/**
 * Rows per database read of the ledger and payouts exports; each page becomes one write to the response. The
 * payments export's own depends on the database (`paymentExportPageSize`).
 */
export const EXPORT_PAGE_SIZE = 500;

export const EXPORT_COLUMNS = [
  'payment_id',
  'reference_id',
  'status',
  'amount_value',
  'amount_unit',
  'amount',
  'created_at',
  'paid_at',
  'settled_at',
  'refunded_at',
  'fee_value',
  'fee_unit',
  'chain',
  'tx_id',
  'description',
  'line_items',
  'metadata',
  'buyer_email',
  'buyer_name',
] as const;

const CRLF = '\r\n';
const QUOTES = /"/g;

/** Whether a spreadsheet would run the value as a formula: it starts with = + - @, a tab or a carriage return. */
function looksLikeFormula(value: string): boolean {
  const c = value.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13;
}

/**
 * One CSV field: always quoted, quotes doubled (RFC 4180 §2.5–2.7), so commas and line breaks stay inside it. A
 * value a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage return; OWASP "CSV
 * injection") is prefixed with an apostrophe, which spreadsheets show as text. Called for every field of every
 * export row, so it tests characters instead of running a regular expression on values that need nothing.
 */
export function csvField(value: string): string {
  if (value === '') return '""';
  const guarded = looksLikeFormula(value) ? `'${value}` : value;
  return guarded.includes('"') ? `"${guarded.replace(QUOTES, '""')}"` : `"${guarded}"`;
}

export function csvLine(fields: readonly string[]): string {
  let line = csvField(fields[0] ?? '');
  for (let i = 1; i < fields.length; i++) line += ',' + csvField(fields[i]!);
  return line + CRLF;
}

/**
 * The currency of each unit an export meets, looked up once per export: `currency-codes` finds a code by walking its
 * whole table, which per row was a tenth of an export row's time. Units are few (a merchant prices in a handful).
 * Made per export rather than kept by the module (test/architecture/architecture.wiring.rules.test.ts).
 */
export type CurrencyCache = Map<string, ReturnType<typeof currencyOfUnit>>;

function currencyOf(unit: string, currencies: CurrencyCache): ReturnType<typeof currencyOfUnit> {
  let currency = currencies.get(unit);
  if (currency === undefined) {
    currency = currencyOfUnit(unit);
    if (currencies.size < 1000) currencies.set(unit, currency);
  }
  return currency;
}

/** `1250` `iso4217/USD` → `12.50 USD`: the currency's minor-unit digits; a unit that is not a currency keeps minor units. */
export function humanAmount(value: string, unit: string, currencies: CurrencyCache = new Map()): string {
  const currency = currencyOf(unit, currencies);
  if (!currency) return `${value} ${unit}`;
  if (currency.digits === 0) return `${value} ${currency.code}`;
  const padded = value.padStart(currency.digits + 1, '0');
  const major = padded.slice(0, -currency.digits);
  return `${major}.${padded.slice(-currency.digits)} ${currency.code}`;
}

/** One payment's CSV line, from the export's columns (db/queries/paymentExportRows.ts). */
export function paymentCsvLine(
  p: PaymentExportRow,
  box: Pick<SecretBox, 'open'>,
  currencies: CurrencyCache = new Map(),
): string {
  const details = detailsOf(box, {
    id: p.id,
    description: p.description,
    line_items: p.line_items,
    metadata: p.metadata,
    buyer_sealed: p.buyer_sealed,
  });
  return csvLine([
    p.id,
    p.reference_id,
    p.status,
    p.amount_value,
    p.amount_unit,
    humanAmount(p.amount_value, p.amount_unit, currencies),
    iso(Number(p.created_at)),
    p.succeeded_at ?? '',
    p.settled_at ?? '',
    p.refunded_at ?? '',
    p.fee_value ?? '',
    p.fee_unit ?? '',
    p.chain ?? '',
    p.tx_id ?? '',
    details.description ?? '',
    details.lineItems.length ? JSON.stringify(details.lineItems) : '',
    Object.keys(details.metadata).length ? JSON.stringify(details.metadata) : '',
    details.buyer?.email ?? '',
    details.buyer?.name ?? '',
  ]);
}

export type ExportFilter = Omit<ListQuery, 'limit' | 'startingAfter'>;

const secondsToMs = (s: number | undefined) => (s === undefined ? undefined : Math.min(s, 8.64e12) * 1000);

/**
 * The CSV text, page by page: the header row first, then the payments the filters match, newest first. Overdue
 * payments are expired first (a bounded number, as the list does), so a status filter sees the truth.
 */
export async function* exportPaymentsCsv(
  deps: LifecycleDeps,
  scope: MerchantScope,
  filter: ExportFilter,
  pageSize = paymentExportPageSize(deps.db.knex),
): AsyncGenerator<string> {
  const terms = searchTermsOfQuery(filter.q);
  for (const payment of await findOverduePayments(deps.db.knex, deps.now(), 100, scope)) {
    await expireIfOverdue(deps, payment);
  }
  yield csvLine(EXPORT_COLUMNS);
  const currencies: CurrencyCache = new Map();
  let after: { created_at: number; id: string } | undefined;
  for (;;) {
    const rows = await paymentExportPage(deps.db.knex, {
      merchantId: scope.merchantId,
      live: scope.live,
      limit: pageSize,
      startingAfter: after,
      status: filter.status,
      createdGte: secondsToMs(filter.createdGte),
      createdLt: secondsToMs(filter.createdLt),
      settled: filter.settled,
      referenceId: filter.referenceId,
      linkId: filter.linkId,
      terms,
    });
    if (rows.length === 0) return;
    let text = '';
    for (const r of rows) text += paymentCsvLine(r, deps.secretBox, currencies);
    yield text;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { created_at: Number(last.created_at), id: last.id };
  }
}
