/**
 * Invoices, their numbering sequence and their payments (docs/decisions.md §30.9–§30.12). Each function is one
 * statement or one short run of statements in the caller's transaction.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';
import type { components } from '../../generated/gateway.js';

type Db = Knex | Knex.Transaction;
type PaymentStatus = components['schemas']['PaymentStatus'];

export interface InvoiceRow {
  id: string;
  merchant_id: string;
  live: boolean;
  number: string;
  amount_unit: string;
  amount_value: string;
  /** JSON: [{name, quantity, unitAmount}]. */
  line_items: string;
  due_at: number;
  buyer_sealed: string | null;
  notes: string | null;
  created_at: number;
  voided_at: number | null;
}

type RawInvoice = Omit<InvoiceRow, 'live' | 'due_at' | 'created_at' | 'voided_at'> & {
  live: boolean | number;
  due_at: number | string;
  created_at: number | string;
  voided_at: number | string | null;
};

function fromRaw(raw: RawInvoice): InvoiceRow {
  return {
    ...raw,
    live: Boolean(raw.live),
    due_at: Number(raw.due_at),
    created_at: Number(raw.created_at),
    voided_at: raw.voided_at === null ? null : Number(raw.voided_at),
  };
}

const INVOICE_ID = /^in_[0-9A-Za-z]{24}$/;

export function isInvoiceId(id: string): boolean {
  return INVOICE_ID.test(id);
}

export async function insertInvoice(db: Db, row: InvoiceRow): Promise<void> {
  await db('invoices').insert(row);
}

/** The invoice with this id, or null; with `forUpdate` its row is locked (PostgreSQL; SQLite has one writer). */
export async function findInvoice(
  db: Db,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<InvoiceRow | null> {
  if (!isInvoiceId(id)) return null;
  let query = db('invoices').where({ id }).first();
  if (options.forUpdate && dialectOf(db) === 'postgres') query = query.forUpdate();
  const raw = (await query) as RawInvoice | undefined;
  return raw ? fromRaw(raw) : null;
}

/** One page of a merchant's invoices of one mode, newest first, after the `after` invoice when given. */
export async function listInvoices(
  db: Db,
  scope: { merchantId: string; live: boolean },
  limit: number,
  after: InvoiceRow | null,
): Promise<InvoiceRow[]> {
  let query = db('invoices')
    .where({ merchant_id: scope.merchantId, live: scope.live })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  if (after) {
    query = query.where((q) =>
      q
        .where('created_at', '<', after.created_at)
        .orWhere((q2) => q2.where('created_at', after.created_at).andWhere('id', '<', after.id)),
    );
  }
  return ((await query) as RawInvoice[]).map(fromRaw);
}

export async function markInvoiceVoided(db: Db, id: string, at: number): Promise<void> {
  await db('invoices').where({ id }).whereNull('voided_at').update({ voided_at: at });
}

export interface InvoicePaymentRow {
  id: string;
  status: PaymentStatus;
  amount_unit: string;
  amount_value: string;
  expires_at: number;
}

/** Every payment made from these invoices, oldest first (the partial index payments_invoice_idx). */
export async function paymentsOfInvoices(db: Db, invoiceIds: string[]): Promise<Map<string, InvoicePaymentRow[]>> {
  const out = new Map<string, InvoicePaymentRow[]>(invoiceIds.map((id) => [id, []]));
  if (invoiceIds.length === 0) return out;
  const rows = (await db('payments')
    .whereIn('invoice_id', invoiceIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id', 'invoice_id', 'status', 'amount_unit', 'amount_value', 'expires_at')) as (Omit<
    InvoicePaymentRow,
    'expires_at'
  > & { invoice_id: string; expires_at: number | string })[];
  for (const { invoice_id, ...row } of rows) {
    out.get(invoice_id)?.push({ ...row, expires_at: Number(row.expires_at) });
  }
  return out;
}

/** Ties a payment just created in this transaction to its invoice. */
export async function setPaymentInvoice(db: Knex.Transaction, paymentId: string, invoiceId: string): Promise<void> {
  await db('payments').where({ id: paymentId }).update({ invoice_id: invoiceId });
}

export interface SequenceRow {
  prefix: string;
  next_number: number;
}

export const DEFAULT_SEQUENCE: SequenceRow = { prefix: 'INV-', next_number: 1 };

/** The merchant's sequence for the mode, or the default when never set or used. */
export async function findSequence(db: Db, merchantId: string, live: boolean): Promise<SequenceRow> {
  const row = (await db('invoice_sequences')
    .where({ merchant_id: merchantId, live })
    .first('prefix', 'next_number')) as { prefix: string; next_number: number | string } | undefined;
  return row ? { prefix: row.prefix, next_number: Number(row.next_number) } : { ...DEFAULT_SEQUENCE };
}

/**
 * The sequence row, created with the defaults if absent, locked for the rest of the transaction: PostgreSQL's row
 * lock (a concurrent insert of the same key waits for the first to commit, then finds it), SQLite's single writer.
 */
async function lockSequence(trx: Knex.Transaction, merchantId: string, live: boolean): Promise<SequenceRow> {
  await trx('invoice_sequences')
    .insert({ merchant_id: merchantId, live, ...DEFAULT_SEQUENCE })
    .onConflict(['merchant_id', 'live'])
    .ignore();
  let query = trx('invoice_sequences').where({ merchant_id: merchantId, live }).first('prefix', 'next_number');
  if (dialectOf(trx) === 'postgres') query = query.forUpdate();
  const row = (await query) as { prefix: string; next_number: number | string };
  return { prefix: row.prefix, next_number: Number(row.next_number) };
}

/**
 * Takes the next number of the sequence in the caller's transaction: it is given for good only if that transaction
 * commits (with the invoice that carries it), so numbers have no gaps.
 */
export async function takeNextNumber(
  trx: Knex.Transaction,
  merchantId: string,
  live: boolean,
): Promise<{ prefix: string; number: number }> {
  const current = await lockSequence(trx, merchantId, live);
  await trx('invoice_sequences')
    .where({ merchant_id: merchantId, live })
    .update({ next_number: current.next_number + 1 });
  return { prefix: current.prefix, number: current.next_number };
}

/** Changes the sequence under its lock; `check` sees the current row and may refuse. */
export async function updateSequence(
  trx: Knex.Transaction,
  merchantId: string,
  live: boolean,
  change: (current: SequenceRow) => SequenceRow,
): Promise<SequenceRow> {
  const next = change(await lockSequence(trx, merchantId, live));
  await trx('invoice_sequences').where({ merchant_id: merchantId, live }).update(next);
  return next;
}
