/**
 * The inserts of a group commit of creates (payments/lifecycle.ts): each create's idempotency key with its answer
 * (keyed creates), its payment and its `payment.created` event. On PostgreSQL all three go in one prepared statement,
 * one round trip instead of three: a keyed create there spent a third of its time on the database client and its
 * socket writes, one per statement (BENCHMARKS.md, "Issue 18"). On SQLite, where a statement is no round trip, three
 * fixed one-row statements run for each create, prepared once: knex's builder compiled a batch's multi-row inserts
 * anew every time, a tenth of a create's time. test/ops/ops.db.fastPaths.test.ts compares both with the inserts of
 * the query functions (`insertCreatesOneByOne`).
 */
import type { Knex } from 'knex';
import { onSqliteConnection, preparedReadAll, sqliteValues } from '../connect.js';
import { dialectOf } from '../dialect.js';
import { insertEvents, type EventRow } from './events.js';
import { inScopeOrder, insertAnsweredKeys, type AnsweredKeyRow } from './idempotencyKeys.js';
import { FINAL_STATUSES } from './paymentDayTotals.js';
import { DAY_MS } from './paymentOverview.js';
import { insertPayments, type PaymentRow } from './payments.js';
import { insertSearchTerms } from './paymentSearch.js';

export interface CreateRows {
  payment: Omit<PaymentRow, 'stages'>;
  event: EventRow;
  /** The payment's words for the dashboard's search (payments/searchTerms.ts), written with it. */
  terms?: string[];
  /** A keyed create's key: the payment and event are inserted only if this key is (its scope held none). */
  key?: AnsweredKeyRow;
}

/**
 * The PostgreSQL statement's text. The keys go in first (in scope order, so that transactions inserting overlapping
 * keys lock in one order, as insertAnsweredKeys does); a payment goes in if it has no key or its key went in; its
 * event goes in with it. The statement answers the ids of the payments it inserted. A data-modifying CTE sees the
 * rows another part inserts only through its RETURNING, which is how the payments read the keys that went in.
 * The payments are counted in the overview's rollup by the same statement, the rows it touches locked in key order
 * (paymentDayTotals.ts counts the same way). `gated`: it first reads the active webhook endpoints of the batch's merchants and modes (two more arrays, the
 * creates' merchants and modes, come first), and if there is any it inserts nothing and answers them instead
 * (`endpoint_merchant_id`, `endpoint_live`).
 */
function createsSql(gated: boolean): string {
  const open = gated ? 'not exists (select 1 from w) and ' : '';
  return `with ${
    gated
      ? `w as (
     select distinct s.merchant_id, s.live from unnest(?::text[], ?::boolean[]) as s(merchant_id, live)
     join webhook_endpoints ep on ep.merchant_id = s.merchant_id
       and ep.mode = case when s.live then 'live' else 'test' end and ep.deleted_at is null
   ),
   `
      : ''
  }k as (
     insert into idempotency_keys (merchant_id, live, key, request_hash, created_at, response_status, response_body)
     select * from unnest(?::text[], ?::boolean[], ?::text[], ?::text[], ?::bigint[], ?::int[], ?::text[])
       as r(merchant_id, live, key, request_hash, created_at, response_status, response_body)
     where ${open}true
     on conflict (merchant_id, live, key) do nothing
     returning merchant_id, live, key
   ),
   p as (
     insert into payments (id, merchant_id, live, status, state_version, reference_id, amount_unit, amount_value,
       success_url, error_url, created_at, expires_at, updated_at, description, line_items, metadata, buyer_sealed,
       settlement_mode)
     select u.id, u.merchant_id, u.live, u.status, u.state_version, u.reference_id, u.amount_unit, u.amount_value,
       u.success_url, u.error_url, u.created_at, u.expires_at, u.updated_at, u.description, u.line_items, u.metadata,
       u.buyer_sealed, (select m.settlement_mode from merchants m where m.id = u.merchant_id)
     from unnest(?::text[], ?::text[], ?::boolean[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[],
       ?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[],
       ?::text[])
       as u(id, merchant_id, live, status, state_version, reference_id, amount_unit, amount_value, success_url,
         error_url, created_at, expires_at, updated_at, description, line_items, metadata, buyer_sealed, key)
     where ${open}(u.key is null
       or exists (select 1 from k where k.merchant_id = u.merchant_id and k.live = u.live and k.key = u.key))
     returning id, merchant_id, live, status, amount_unit, amount_value, created_at
   ),
   t as (
     insert into payment_day_totals (merchant_id, live, day, amount_unit, count, succeeded, final_count, volume)
     select merchant_id, live, created_at / 86400000, amount_unit, count(*),
       sum(case when status = 'succeeded' then 1 else 0 end),
       sum(case when status in ('succeeded', 'failed', 'expired', 'cancelled') then 1 else 0 end),
       sum(case when status = 'succeeded' then cast(amount_value as numeric) else 0 end)
     from p group by merchant_id, live, created_at / 86400000, amount_unit
     order by merchant_id, live, created_at / 86400000, amount_unit
     on conflict (merchant_id, live, day, amount_unit) do update set
       count = payment_day_totals.count + excluded.count,
       succeeded = payment_day_totals.succeeded + excluded.succeeded,
       final_count = payment_day_totals.final_count + excluded.final_count,
       volume = payment_day_totals.volume + excluded.volume
   ),
   e as (
     insert into events (id, payment_id, merchant_id, live, type, state_version, created_at, payload, payload_sealed)
     select v.* from unnest(?::text[], ?::text[], ?::text[], ?::boolean[], ?::text[], ?::int[], ?::bigint[], ?::text[],
       ?::text[])
       as v(id, payment_id, merchant_id, live, type, state_version, created_at, payload, payload_sealed)
     where v.payment_id in (select id from p)
   ),
   s as (
     insert into payment_search_terms (merchant_id, live, term, created_at, payment_id)
     select st.* from unnest(?::text[], ?::boolean[], ?::text[], ?::bigint[], ?::text[])
       as st(merchant_id, live, term, created_at, payment_id)
     where st.payment_id in (select id from p)
   )
   ${
     gated
       ? `select id, null::text as endpoint_merchant_id, null::boolean as endpoint_live from p
   union all select null, merchant_id, live from w`
       : 'select id from p'
   }`;
}

const insertCreatesPg = preparedReadAll<{ id: string }>('paygate_insert_creates', createsSql(false));
const insertCreatesAlonePg = preparedReadAll<{
  id: string | null;
  endpoint_merchant_id: string | null;
  endpoint_live: boolean | null;
}>('paygate_insert_creates_alone', createsSql(true));

/** The keyed creates' keys, in scope order: the order every insert of keys takes their locks in. */
function keysInScopeOrder(creates: CreateRows[]): AnsweredKeyRow[] {
  return inScopeOrder(creates.flatMap((c) => (c.key ? [c.key] : [])));
}

/** The statement's values for the creates: their keys (in scope order), payments and events, as arrays. */
function createsValues(creates: CreateRows[]): unknown[] {
  const keys = keysInScopeOrder(creates);
  const key = <K extends keyof AnsweredKeyRow>(k: K) => keys.map((r) => r[k]);
  const payment = <K extends keyof CreateRows['payment']>(k: K) => creates.map((c) => c.payment[k]);
  const event = <K extends keyof EventRow>(k: K) => creates.map((c) => c.event[k]);
  return [
    key('merchant_id'),
    key('live'),
    key('key'),
    key('request_hash'),
    key('created_at'),
    key('response_status'),
    key('response_body'),
    payment('id'),
    payment('merchant_id'),
    payment('live'),
    payment('status'),
    payment('state_version'),
    payment('reference_id'),
    payment('amount_unit'),
    payment('amount_value'),
    payment('success_url'),
    payment('error_url'),
    payment('created_at'),
    payment('expires_at'),
    payment('updated_at'),
    creates.map((c) => c.payment.description ?? null),
    creates.map((c) => c.payment.line_items ?? null),
    creates.map((c) => c.payment.metadata ?? null),
    creates.map((c) => c.payment.buyer_sealed ?? null),
    creates.map((c) => c.key?.key ?? null),
    event('id'),
    event('payment_id'),
    event('merchant_id'),
    event('live'),
    event('type'),
    event('state_version'),
    event('created_at'),
    event('payload'),
    creates.map((c) => c.event.payload_sealed ?? null),
    ...termColumns(creates),
  ];
}

/** Every create's search terms, flattened into the columns of `payment_search_terms`. */
function termColumns(creates: CreateRows[]): unknown[][] {
  const rows = creates.flatMap((c) => (c.terms ?? []).map((term) => ({ c, term })));
  return [
    rows.map((r) => r.c.payment.merchant_id),
    rows.map((r) => r.c.payment.live),
    rows.map((r) => r.term),
    rows.map((r) => r.c.payment.created_at),
    rows.map((r) => r.c.payment.id),
  ];
}

/** The outcome of `insertCreatesAlone`. */
export type AloneOutcome =
  | { inserted: boolean[] }
  /** Nothing was inserted: these merchants have a webhook endpoint for these modes. */
  | { endpoints: { merchantId: string; live: boolean }[] };

/**
 * PostgreSQL: the creates in one statement that commits on its own, without a transaction (one round trip instead of
 * four: begin, the inserts, the endpoint read of the delivery hook, commit), unless a merchant of the batch has an
 * active webhook endpoint for the payment's mode: then the statement inserts nothing and names those, and the caller
 * makes the creates in a transaction that runs the event hooks. The endpoints are read by the statement itself, so
 * an endpoint committed before it started is always seen, as the delivery hook's read in a transaction sees it.
 */
export async function insertCreatesAlone(db: Knex, creates: CreateRows[]): Promise<AloneOutcome> {
  if (dialectOf(db) !== 'postgres')
    throw new Error('insertCreatesAlone: PostgreSQL only; SQLite creates go in a transaction.');
  if (creates.length === 0) return { inserted: [] };
  const rows = await insertCreatesAlonePg(db, [
    creates.map((c) => c.payment.merchant_id),
    creates.map((c) => c.payment.live),
    ...createsValues(creates),
  ]);
  const endpoints = rows.flatMap((r) =>
    r.endpoint_merchant_id === null ? [] : [{ merchantId: r.endpoint_merchant_id, live: r.endpoint_live === true }],
  );
  if (endpoints.length > 0) return { endpoints };
  const ids = new Set(rows.map((r) => r.id));
  return { inserted: creates.map((c) => ids.has(c.payment.id)) };
}

const SQLITE_KEY = `insert into idempotency_keys (merchant_id, live, key, request_hash, created_at, response_status,
   response_body) values (?, ?, ?, ?, ?, ?, ?) on conflict (merchant_id, live, key) do nothing`;
const SQLITE_PAYMENT = `insert into payments (id, merchant_id, live, status, state_version, reference_id, amount_unit,
   amount_value, success_url, error_url, created_at, expires_at, updated_at, description, line_items, metadata,
   buyer_sealed, settlement_mode)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select settlement_mode from merchants where id = ?))`;
/** One new payment counted in the overview's rollup (paymentDayTotals.ts counts the same way). */
const SQLITE_DAY_TOTAL = `insert into payment_day_totals (merchant_id, live, day, amount_unit, count, succeeded,
   final_count, volume) values (?, ?, ?, ?, 1, ?, ?, cast(? as integer))
   on conflict (merchant_id, live, day, amount_unit) do update set count = payment_day_totals.count + 1,
     succeeded = payment_day_totals.succeeded + excluded.succeeded,
     final_count = payment_day_totals.final_count + excluded.final_count,
     volume = payment_day_totals.volume + excluded.volume`;
const SQLITE_EVENT = `insert into events (id, payment_id, merchant_id, live, type, state_version, created_at, payload,
   payload_sealed) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const SQLITE_TERM = `insert into payment_search_terms (merchant_id, live, term, created_at, payment_id)
   values (?, ?, ?, ?, ?)`;

/** SQLite: the keys in scope order, each create's payment if its key went in (or it has none), then its event. */
function insertCreatesSqlite(trx: Knex.Transaction, creates: CreateRows[]): Promise<boolean[]> {
  return onSqliteConnection(trx, 'insertCreates', (conn) => {
    const keyStatement = conn.prepare(SQLITE_KEY);
    const keyWentIn = new Map<AnsweredKeyRow, boolean>();
    for (const k of keysInScopeOrder(creates)) {
      const values = [k.merchant_id, k.live, k.key, k.request_hash, k.created_at, k.response_status, k.response_body];
      keyWentIn.set(k, keyStatement.run(sqliteValues(values)).changes === 1);
    }
    const go = creates.map((c) => (c.key ? keyWentIn.get(c.key)! : true));
    const paymentStatement = conn.prepare(SQLITE_PAYMENT);
    const eventStatement = conn.prepare(SQLITE_EVENT);
    const dayTotalStatement = conn.prepare(SQLITE_DAY_TOTAL);
    const termStatement = conn.prepare(SQLITE_TERM);
    for (const [i, { payment: p, event: e, terms }] of creates.entries()) {
      if (!go[i]) continue;
      paymentStatement.run(
        sqliteValues([
          p.id,
          p.merchant_id,
          p.live,
          p.status,
          p.state_version,
          p.reference_id,
          p.amount_unit,
          p.amount_value,
          p.success_url,
          p.error_url,
          p.created_at,
          p.expires_at,
          p.updated_at,
          p.description ?? null,
          p.line_items ?? null,
          p.metadata ?? null,
          p.buyer_sealed ?? null,
          p.merchant_id,
        ]),
      );
      const succeeded = p.status === 'succeeded';
      dayTotalStatement.run(
        sqliteValues([
          p.merchant_id,
          p.live,
          Math.floor(p.created_at / DAY_MS),
          p.amount_unit,
          succeeded ? 1 : 0,
          FINAL_STATUSES.has(p.status) ? 1 : 0,
          succeeded ? p.amount_value : '0',
        ]),
      );
      eventStatement.run(
        sqliteValues([
          e.id,
          e.payment_id,
          e.merchant_id,
          e.live,
          e.type,
          e.state_version,
          e.created_at,
          e.payload,
          e.payload_sealed ?? null,
        ]),
      );
      for (const term of terms ?? [])
        termStatement.run(sqliteValues([p.merchant_id, p.live, term, p.created_at, p.id]));
    }
    return go;
  });
}

/** Inserts what it may of each create, in the caller's transaction; answers, per create, whether it went in. */
export async function insertCreates(trx: Knex.Transaction, creates: CreateRows[]): Promise<boolean[]> {
  if (creates.length === 0) return [];
  if (dialectOf(trx) !== 'postgres') return insertCreatesSqlite(trx, creates);
  const inserted = await insertCreatesPg(trx, createsValues(creates));
  const ids = new Set(inserted.map((r) => r.id));
  return creates.map((c) => ids.has(c.payment.id));
}

/** The plain path: the keys, then the payments whose keys went in, then their events. */
export async function insertCreatesOneByOne(trx: Knex.Transaction, creates: CreateRows[]): Promise<boolean[]> {
  const keyed = creates.filter((c) => c.key);
  const taken = await insertAnsweredKeys(
    trx,
    keyed.map((c) => c.key!),
  );
  const keyWentIn = new Map(keyed.map((c, i) => [c, taken[i]!]));
  const go = creates.map((c) => keyWentIn.get(c) ?? true);
  const inserted = creates.filter((_, i) => go[i]);
  if (inserted.length > 0) {
    await insertPayments(
      trx,
      inserted.map((c) => c.payment),
    );
    await insertEvents(
      trx,
      inserted.map((c) => c.event),
    );
    await insertSearchTerms(trx, inserted);
  }
  return go;
}
