import type { Knex } from 'knex';
import { isPaymentId } from '../../ids.js';
import type { components } from '../../generated/gateway.js';
import type { SettlementMode } from './accounts.js';
import { stageColumns, type PaymentStages, type StageChange, type StageColumn } from './paymentStages.js';
import { preparedReadAll } from '../connect.js';
import { dialectOf } from '../dialect.js';
import { addCreatedToDayTotals, moveInDayTotals } from './paymentDayTotals.js';
import { whereHasTerms } from './paymentSearch.js';

type PaymentStatus = components['schemas']['PaymentStatus'];

export interface PaymentRow {
  id: string;
  merchant_id: string;
  live: boolean;
  status: PaymentStatus;
  state_version: number;
  reference_id: string;
  amount_unit: string;
  amount_value: string;
  success_url: string | null;
  error_url: string | null;
  created_at: number;
  expires_at: number;
  updated_at: number;
  /**
   * The settlement mode the payment was created under (its merchant's then, §22.14): on every row read from the
   * table. Absent only on the row a create answers, made before its insert, which takes the merchant's mode in its
   * own statement: settlement/modes.ts reads it by id then.
   */
  settlement_mode?: SettlementMode;
  /**
   * The payment link it was created from (docs/decisions.md §30.5), null for an API payment; absent on rows made in
   * code without one.
   */
  link_id?: string | null;
  /** Each stage's sub-object, parsed; null when the stage does not apply. */
  stages: PaymentStages;
  /**
   * What was sold, as stored (payments/details.ts reads them; the buyer sealed): on every row read from the table;
   * absent (none) on rows made without them, e.g. by fixtures.
   */
  description?: string | null;
  line_items?: string | null;
  metadata?: string | null;
  buyer_sealed?: string | null;
}

type RawRow = Omit<PaymentRow, 'live' | 'stages' | 'settlement_mode' | 'link_id'> & {
  live: boolean | number;
  link_id?: string | null;
  settlement_mode: SettlementMode;
} & Record<StageColumn, string | null>;

/**
 * A stage column's JSON, as its stage type. The one place the stage types are asserted rather than checked: the
 * columns are written only by `updatePaymentAtVersion`, whose input is typed from the contract, so a full check of
 * every field on every read (status polls read payments at a high rate) would only re-prove what the writers'
 * types already did. What is checked is what a type cannot promise: that the column holds an object.
 */
function parseStage<S extends StageColumn>(raw: RawRow, stage: S): PaymentStages[S] {
  const text = raw[stage];
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`payment ${raw.id}: the ${stage} stage is not an object`);
  }
  return value as PaymentStages[S];
}

function fromRaw(raw: RawRow): PaymentRow {
  const stages: PaymentStages = {
    processing: parseStage(raw, 'processing'),
    success: parseStage(raw, 'success'),
    failed: parseStage(raw, 'failed'),
    cancelled: parseStage(raw, 'cancelled'),
    expired: parseStage(raw, 'expired'),
    settled: parseStage(raw, 'settled'),
    refunded: parseStage(raw, 'refunded'),
  };
  return {
    id: raw.id,
    merchant_id: raw.merchant_id,
    // SQLite has no boolean type and answers 0/1.
    live: raw.live === true || raw.live === 1,
    status: raw.status,
    state_version: Number(raw.state_version),
    reference_id: raw.reference_id,
    amount_unit: raw.amount_unit,
    amount_value: raw.amount_value,
    success_url: raw.success_url,
    error_url: raw.error_url,
    created_at: Number(raw.created_at),
    expires_at: Number(raw.expires_at),
    updated_at: Number(raw.updated_at),
    settlement_mode: raw.settlement_mode,
    link_id: raw.link_id ?? null,
    stages,
    description: raw.description ?? null,
    line_items: raw.line_items ?? null,
    metadata: raw.metadata ?? null,
    buyer_sealed: raw.buyer_sealed ?? null,
  };
}

/**
 * On PostgreSQL, any number of new payments in one fixed prepared statement (one array per column): a group commit
 * inserts up to dozens at once, and a text that varied with their number would be parsed and planned every time.
 */
const insertPaymentsPg = preparedReadAll(
  'paygate_insert_payments',
  `insert into payments (id, merchant_id, live, status, state_version, reference_id, amount_unit, amount_value,
     success_url, error_url, created_at, expires_at, updated_at, description, line_items, metadata, buyer_sealed,
     settlement_mode)
   select u.*, (select m.settlement_mode from merchants m where m.id = u.merchant_id)
   from unnest(?::text[], ?::text[], ?::boolean[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[],
     ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[])
     as u(id, merchant_id, live, status, state_version, reference_id, amount_unit, amount_value, success_url,
       error_url, created_at, expires_at, updated_at, description, line_items, metadata, buyer_sealed)`,
);

/**
 * New payments, all stages empty; several in one statement when creates are committed together. Each takes its
 * merchant's settlement mode in the same statement (`settlement_mode`, read back by `settlementModeOfPayment`), so
 * the mode a payment is created under is the one it is settled under, whatever the merchant changes later. The
 * overview's rollup counts them in the same transaction (paymentDayTotals.ts).
 */
export async function insertPayments(db: Knex | Knex.Transaction, rows: Omit<PaymentRow, 'stages'>[]): Promise<void> {
  if (rows.length === 0) return;
  if (!db.isTransaction) return db.transaction((trx) => insertPayments(trx, rows));
  await insertPaymentRows(db, rows);
  await addCreatedToDayTotals(db, rows);
}

async function insertPaymentRows(db: Knex | Knex.Transaction, rows: Omit<PaymentRow, 'stages'>[]): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    const column = <K extends keyof Omit<PaymentRow, 'stages'>>(k: K) => rows.map((r) => r[k]);
    await insertPaymentsPg(db, [
      column('id'),
      column('merchant_id'),
      column('live'),
      column('status'),
      column('state_version'),
      column('reference_id'),
      column('amount_unit'),
      column('amount_value'),
      column('success_url'),
      column('error_url'),
      column('created_at'),
      column('expires_at'),
      column('updated_at'),
      rows.map((r) => r.description ?? null),
      rows.map((r) => r.line_items ?? null),
      rows.map((r) => r.metadata ?? null),
      rows.map((r) => r.buyer_sealed ?? null),
    ]);
    return;
  }
  const empty = Object.fromEntries(stageColumns.map((c) => [c, null]));
  await db('payments').insert(
    rows.map((row) => ({
      ...row,
      ...empty,
      settlement_mode: db.raw('(select settlement_mode from merchants where id = ?)', [row.merchant_id]),
    })),
  );
}

/** The settlement mode a payment was created under (its merchant's then); null for an unknown payment. */
export async function settlementModeOfPayment(
  db: Knex | Knex.Transaction,
  id: string,
): Promise<'direct' | 'collected' | null> {
  const row = (await db('payments').where({ id }).first('settlement_mode')) as
    { settlement_mode: 'direct' | 'collected' } | undefined;
  return row?.settlement_mode ?? null;
}

/** The payment with this id, or null; an id that is not of an issued id's form names none (ids.ts, isPaymentId). */
export async function findPayment(
  db: Knex | Knex.Transaction,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentRow | null> {
  if (!isPaymentId(id)) return null;
  let query = db('payments').where({ id }).first();
  // Row locks exist only on PostgreSQL; SQLite serialises writers on its single connection.
  if (options.forUpdate && dialectOf(db) === 'postgres') query = query.forUpdate();
  const raw = (await query) as RawRow | undefined;
  return raw ? fromRaw(raw) : null;
}

/**
 * Applies a change only if the payment is still at `current`'s version: a racing writer that got there first makes
 * this update touch no row, and the caller re-reads instead of overwriting. The one writer of a payment's status:
 * a status change moves the payment in the overview's rollup in the same transaction (paymentDayTotals.ts).
 */
export async function updatePaymentAtVersion(
  db: Knex.Transaction,
  current: Omit<PaymentRow, 'stages'>,
  change: {
    status: PaymentStatus;
    state_version: number;
    updated_at: number;
    stages: StageChange;
  },
): Promise<boolean> {
  const stages = Object.fromEntries(
    Object.entries(change.stages).map(([k, v]) => [k, v === null ? null : JSON.stringify(v)]),
  );
  const count = await db('payments')
    .where({ id: current.id, state_version: current.state_version })
    .update({ status: change.status, state_version: change.state_version, updated_at: change.updated_at, ...stages });
  if (count !== 1) return false;
  await moveInDayTotals(db, { ...current, status: change.status }, current.status);
  return true;
}

export interface ListFilter {
  merchantId: string;
  live: boolean;
  limit: number;
  startingAfter?: { created_at: number; id: string };
  status?: PaymentStatus;
  createdGte?: number;
  createdLt?: number;
  settled?: boolean;
  /** Exact match on the merchant's reference. */
  referenceId?: string;
  /** The payments one payment link created; read through the partial index payments_link_idx (docs/decisions.md §30.8). */
  linkId?: string;
  /** The merchant's reference contains this text, case-sensitively. */
  referenceContains?: string;
  /** Every one of these words is in the description or the metadata values (payments/searchTerms.ts). */
  terms?: string[];
}

/**
 * The rows `filter` matches, newest first, keyset-paginated on (created_at, id) so pages stay stable while payments
 * are created: the list's and the export's one definition of a filter (the export selects fewer columns).
 */
export function paymentsMatching(db: Knex, filter: ListFilter): Knex.QueryBuilder {
  const query = db('payments').where({ merchant_id: filter.merchantId, live: filter.live });
  if (filter.status) query.andWhere('status', filter.status);
  if (filter.createdGte !== undefined) query.andWhere('created_at', '>=', filter.createdGte);
  if (filter.createdLt !== undefined) query.andWhere('created_at', '<', filter.createdLt);
  if (filter.settled === true) query.whereNotNull('settled');
  if (filter.settled === false) query.whereNull('settled').andWhere('status', 'succeeded');
  if (filter.referenceId !== undefined) query.andWhere('reference_id', filter.referenceId);
  // `link_id = ?` implies the index's `link_id IS NOT NULL`, and the order (created_at, id) is its own.
  if (filter.linkId !== undefined) query.andWhere('link_id', filter.linkId);
  if (filter.referenceContains) {
    // replace() exists in both databases and is case-sensitive in both, unlike LIKE (case-blind on SQLite); no
    // wildcard in the text can change the test's meaning either.
    query.andWhereRaw('length(reference_id) > length(replace(reference_id, ?, ?))', [filter.referenceContains, '']);
  }
  if (filter.terms?.length) whereHasTerms(query, db, filter, filter.terms);
  if (filter.startingAfter) {
    // A row comparison, not `created_at < ? OR (created_at = ? AND id < ?)`: PostgreSQL takes it as a bound of the
    // list index, so a deep page starts at its cursor instead of walking every newer payment (docs/decisions.md §24.1).
    const { created_at, id } = filter.startingAfter;
    query.andWhereRaw('(created_at, id) < (?, ?)', [created_at, id]);
  }
  return query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(filter.limit);
}

/** Newest first, keyset-paginated on (created_at, id) so pages stay stable while payments are created. */
export async function listPayments(db: Knex, filter: ListFilter): Promise<PaymentRow[]> {
  const rows = (await paymentsMatching(db, filter)) as RawRow[];
  return rows.map(fromRaw);
}

/** Payments still open after their deadline, for the expiry sweeper (or one merchant's mode, before a list). */
export async function findOverduePayments(
  db: Knex,
  now: number,
  limit: number,
  scope?: { merchantId: string; live: boolean },
): Promise<PaymentRow[]> {
  const query = db('payments').where('status', 'requires_action').andWhere('expires_at', '<=', now);
  if (scope) query.andWhere({ merchant_id: scope.merchantId, live: scope.live });
  const rows = (await query.orderBy('expires_at').limit(limit)) as RawRow[];
  return rows.map(fromRaw);
}
