/**
 * Payment links (issue 35 §2, docs/decisions.md §30.5): the rows, the one conditional update that takes a use, and
 * the totals of the payments each link created.
 */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  live: boolean;
  currency: string;
  amount_value: string | null;
  min_amount: string | null;
  max_amount: string | null;
  quantity_adjustable: boolean;
  max_quantity: number | null;
  description: string;
  line_items: { name: string; quantity: number; unitAmount: string }[];
  metadata: Record<string, string>;
  success_url: string | null;
  cancel_url: string | null;
  expires_at: number | null;
  max_uses: number | null;
  uses: number;
  active: boolean;
  created_at: number;
  updated_at: number;
}

type RawLink = Omit<PaymentLinkRow, 'live' | 'quantity_adjustable' | 'active' | 'line_items' | 'metadata'> & {
  live: boolean | number;
  quantity_adjustable: boolean | number;
  active: boolean | number;
  line_items: string | null;
  metadata: string | null;
};

const bool = (v: boolean | number) => v === true || v === 1;
const nullableNumber = (v: number | string | null) => (v === null ? null : Number(v));

function fromRaw(raw: RawLink): PaymentLinkRow {
  return {
    ...raw,
    live: bool(raw.live),
    quantity_adjustable: bool(raw.quantity_adjustable),
    active: bool(raw.active),
    max_quantity: nullableNumber(raw.max_quantity),
    line_items: raw.line_items === null ? [] : (JSON.parse(raw.line_items) as PaymentLinkRow['line_items']),
    metadata: raw.metadata === null ? {} : (JSON.parse(raw.metadata) as Record<string, string>),
    expires_at: nullableNumber(raw.expires_at),
    max_uses: nullableNumber(raw.max_uses),
    uses: Number(raw.uses),
    created_at: Number(raw.created_at),
    updated_at: Number(raw.updated_at),
  };
}

function toRaw(row: Partial<PaymentLinkRow>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  if (row.line_items !== undefined)
    out.line_items = row.line_items.length === 0 ? null : JSON.stringify(row.line_items);
  if (row.metadata !== undefined)
    out.metadata = Object.keys(row.metadata).length === 0 ? null : JSON.stringify(row.metadata);
  return out;
}

export async function insertPaymentLink(db: Db, row: PaymentLinkRow): Promise<void> {
  await db('payment_links').insert(toRaw(row));
}

export async function findPaymentLink(db: Db, id: string): Promise<PaymentLinkRow | null> {
  const raw = (await db('payment_links').where({ id }).first()) as RawLink | undefined;
  return raw ? fromRaw(raw) : null;
}

export async function updatePaymentLink(db: Db, id: string, change: Partial<PaymentLinkRow>): Promise<void> {
  await db('payment_links').where({ id }).update(toRaw(change));
}

/** Newest first, keyset-paginated on (created_at, id). */
export async function listPaymentLinks(
  db: Db,
  filter: { merchantId: string; live: boolean; limit: number; startingAfter?: { created_at: number; id: string } },
): Promise<PaymentLinkRow[]> {
  const query = db('payment_links').where({ merchant_id: filter.merchantId, live: filter.live });
  if (filter.startingAfter) {
    query.andWhereRaw('(created_at, id) < (?, ?)', [filter.startingAfter.created_at, filter.startingAfter.id]);
  }
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(filter.limit)) as RawLink[];
  return rows.map(fromRaw);
}

/**
 * Takes one use of a link if it can still create a payment at `now`: active, not past its expiry, under its limit.
 * One conditional update, so of concurrent visits at most `max_uses` succeed on either database (PostgreSQL
 * re-checks the condition on the row it waited for; SQLite runs one writer at a time). Call it in the transaction
 * that inserts the payment, so a use is never taken without its payment, nor a payment made without its use.
 */
export async function takeLinkUse(trx: Knex.Transaction, id: string, now: number): Promise<boolean> {
  const updated = await trx('payment_links')
    .where({ id, active: true })
    .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
    .andWhere((q) => q.whereNull('max_uses').orWhereRaw('uses < max_uses'))
    .update({ uses: trx.raw('uses + 1') });
  return updated === 1;
}

/** The link a payment came from; written in the transaction that creates it (links/visits.ts). */
export async function setPaymentLink(trx: Knex.Transaction, paymentId: string, linkId: string): Promise<void> {
  await trx('payments').where({ id: paymentId }).update({ link_id: linkId });
}

export interface LinkTotals {
  payments: number;
  succeeded: number;
  /** Σ amount of the succeeded payments, exact (summed as bigint here: amounts are decimal text). */
  succeededAmount: bigint;
}

/**
 * The totals of the links' payments, per link, over the partial index on `payments.link_id`. Amounts are summed by
 * status group in the database as counts, and as exact bigints here from one row per (link, status, amount): a
 * link's payments take few distinct amounts (one for a fixed price).
 */
export async function linkTotals(db: Db, linkIds: string[]): Promise<Map<string, LinkTotals>> {
  const totals = new Map<string, LinkTotals>();
  for (const id of linkIds) totals.set(id, { payments: 0, succeeded: 0, succeededAmount: 0n });
  if (linkIds.length === 0) return totals;
  const rows = (await db('payments')
    .whereIn('link_id', linkIds)
    .groupBy('link_id', 'status', 'amount_value')
    .select('link_id', 'status', 'amount_value', db.raw('count(*) as n'))) as {
    link_id: string;
    status: string;
    amount_value: string;
    n: number | string;
  }[];
  for (const row of rows) {
    const total = totals.get(row.link_id)!;
    const n = Number(row.n);
    total.payments += n;
    if (row.status === 'succeeded') {
      total.succeeded += n;
      total.succeededAmount += BigInt(row.amount_value) * BigInt(n);
    }
  }
  return totals;
}

/** The payments a link created, newest first (the link's page in the dashboard). */
export async function paymentIdsOfLink(db: Db, linkId: string, limit: number): Promise<string[]> {
  const rows = (await db('payments')
    .where({ link_id: linkId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}
