import type { Knex } from 'knex';
import { isPaymentId } from '../../ids.js';
import { Combiner } from '../combiner.js';
import { dialectOf } from '../dialect.js';

type Db = Knex | Knex.Transaction;
const bool = (v: unknown) => v === true || v === 1;
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export interface EndpointRow {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live';
  url: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  secret_rotated_at: number;
  failing_since: number | null;
  created_at: number;
  deleted_at: number | null;
}

function endpointFromRaw(raw: Record<string, unknown>): EndpointRow {
  return {
    ...(raw as unknown as EndpointRow),
    event_types: JSON.parse(raw.event_types as string) as string[],
    enabled: bool(raw.enabled),
    previous_secret_expires_at: num(raw.previous_secret_expires_at),
    secret_rotated_at: Number(raw.secret_rotated_at),
    failing_since: num(raw.failing_since),
    created_at: Number(raw.created_at),
    deleted_at: num(raw.deleted_at),
  };
}

export async function insertEndpoint(db: Db, row: EndpointRow): Promise<void> {
  await db('webhook_endpoints').insert({ ...row, event_types: JSON.stringify(row.event_types) });
}

/** The merchant's current (not deleted) endpoints, test before live. */
export async function findActiveEndpoints(db: Db, merchantId: string): Promise<EndpointRow[]> {
  const rows = (await db('webhook_endpoints')
    .where({ merchant_id: merchantId })
    .whereNull('deleted_at')
    .orderBy('mode', 'desc')) as Record<string, unknown>[];
  return rows.map(endpointFromRaw);
}

/** The merchant's current (not deleted) endpoint for a mode. */
export async function findActiveEndpoint(
  db: Db,
  merchantId: string,
  mode: 'test' | 'live',
): Promise<EndpointRow | null> {
  const raw = await db('webhook_endpoints').where({ merchant_id: merchantId, mode }).whereNull('deleted_at').first();
  return raw ? endpointFromRaw(raw) : null;
}

export async function findEndpoint(db: Db, id: string): Promise<EndpointRow | null> {
  const raw = await db('webhook_endpoints').where({ id }).first();
  return raw ? endpointFromRaw(raw) : null;
}

export async function updateEndpoint(db: Db, id: string, change: Partial<Omit<EndpointRow, 'id'>>): Promise<void> {
  const row: Record<string, unknown> = { ...change };
  if (change.event_types) row.event_types = JSON.stringify(change.event_types);
  await db('webhook_endpoints').where({ id }).update(row);
}

/** Replaces the signing secrets only if the current one is still `expected`: the loser of a race changes nothing. */
export async function replaceSecret(
  db: Db,
  id: string,
  expected: string,
  change: Pick<
    EndpointRow,
    'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at' | 'secret_rotated_at'
  >,
): Promise<boolean> {
  const count = await db('webhook_endpoints')
    .where({ id, secret_sealed: expected })
    .whereNull('deleted_at')
    .update(change);
  return count === 1;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export type DeliveryTrigger = 'event' | 'resend' | 'replay' | 'test';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payment_id: string;
  merchant_id: string;
  /** The mode of the endpoint it was made for (a test event sent to the live endpoint is a live delivery). */
  live: boolean;
  /** The envelope of a test event, which has no outbox row; null means "the event's payload". */
  payload: string | null;
  status: DeliveryStatus;
  trigger: DeliveryTrigger;
  attempt_count: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  lease_owner: string | null;
  created_at: number;
  delivered_at: number | null;
  updated_at: number;
  /** When the retention job removed its attempts (webhooks/retention.ts); absent or null while they are kept. */
  attempts_pruned_at?: number | null;
}

export function deliveryFromRaw(raw: Record<string, unknown>): DeliveryRow {
  return {
    ...(raw as unknown as DeliveryRow),
    live: bool(raw.live),
    attempt_count: Number(raw.attempt_count),
    next_attempt_at: num(raw.next_attempt_at),
    lease_until: num(raw.lease_until),
    created_at: Number(raw.created_at),
    delivered_at: num(raw.delivered_at),
    updated_at: Number(raw.updated_at),
    attempts_pruned_at: num(raw.attempts_pruned_at),
  };
}

export async function insertDelivery(db: Db, row: DeliveryRow): Promise<void> {
  await db('webhook_deliveries').insert(row);
}

export async function findDelivery(db: Db, id: string): Promise<DeliveryRow | null> {
  const raw = await db('webhook_deliveries').where({ id }).first();
  return raw ? deliveryFromRaw(raw) : null;
}

/** A delivery as a merchant's key of one mode may see it; another merchant's or mode's is not there. */
export async function findVisibleDelivery(
  db: Db,
  id: string,
  merchantId: string,
  live: boolean,
): Promise<DeliveryRow | null> {
  const raw = await db('webhook_deliveries').where({ id, merchant_id: merchantId, live }).first();
  return raw ? deliveryFromRaw(raw) : null;
}

/**
 * Takes the lease on a due delivery. Only one caller can win: the update is conditional on the delivery being due
 * and unleased (or its lease having passed), so two workers never make the same attempt at once.
 */
export async function claimDelivery(
  db: Db,
  id: string,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<DeliveryRow | null> {
  // RETURNING (PostgreSQL, SQLite ≥ 3.35) saves the read-back on the hot path of every attempt.
  const rows = (await db('webhook_deliveries')
    .where({ id, status: 'pending' })
    .andWhere('next_attempt_at', '<=', now)
    .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
    .update({ lease_until: now + leaseMs, lease_owner: owner, updated_at: now })
    .returning('*')) as Record<string, unknown>[];
  return rows.length === 1 ? deliveryFromRaw(rows[0]!) : null;
}

/**
 * Extends a lease its owner still holds (the heartbeat of an attempt in flight). False when it changed nothing: the
 * lease was taken over by another worker's claim, or the attempt was already recorded.
 */
export async function renewLease(db: Db, id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
  const count = await db('webhook_deliveries')
    .where({ id, lease_owner: owner })
    .update({ lease_until: now + leaseMs });
  return count === 1;
}

export async function finishAttempt(
  db: Db,
  id: string,
  owner: string,
  change: Pick<DeliveryRow, 'status' | 'attempt_count' | 'next_attempt_at' | 'delivered_at' | 'updated_at'>,
): Promise<boolean> {
  const count = await db('webhook_deliveries')
    .where({ id, lease_owner: owner })
    .update({ ...change, lease_until: null, lease_owner: null });
  return count === 1;
}

export async function setDeliveryStatus(db: Db, id: string, status: DeliveryRow['status'], now: number): Promise<void> {
  await db('webhook_deliveries')
    .where({ id })
    .update({ status, next_attempt_at: null, lease_until: null, lease_owner: null, updated_at: now });
}

/**
 * Ends the pending deliveries of an endpoint that was disabled or deleted. A lease is left alone: an attempt already
 * under way still records its outcome, and the next claim finds the endpoint unable to receive.
 */
export async function failPendingDeliveries(db: Db, endpointId: string, now: number): Promise<number> {
  return db('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'pending' })
    .update({ status: 'failed', next_attempt_at: null, updated_at: now });
}

/** Deliveries that are due and unleased (or whose lease passed): the sweeper's work list. */
export async function findDueDeliveries(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = (await db('webhook_deliveries')
    .select('id')
    .where('status', 'pending')
    .andWhere('next_attempt_at', '<=', now)
    .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
    .orderBy('next_attempt_at')
    .limit(limit)) as { id: string }[];
  return rows.map((r) => r.id);
}

/**
 * Deliveries whose lease passed with the attempt unrecorded: a worker that died (or lost its database) mid-attempt.
 * A live worker renews its leases and clears them when it records, so these need another worker now. The lease
 * sweeper's work list, run far more often than the full sweep; the due index narrows it to the pending, due rows.
 */
export async function findExpiredLeases(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = (await db('webhook_deliveries')
    .select('id')
    .where('status', 'pending')
    .andWhere('next_attempt_at', '<=', now)
    .andWhere('lease_until', '<', now)
    .orderBy('lease_until')
    .limit(limit)) as { id: string }[];
  return rows.map((r) => r.id);
}

export interface DeliveryFilter {
  merchantId: string;
  live: boolean;
  status?: DeliveryStatus;
  eventType?: string;
  eventId?: string;
  paymentId?: string;
  createdGte?: number;
  createdLt?: number;
  startingAfter?: { created_at: number; id: string };
  limit: number;
}

/**
 * A merchant's deliveries of one mode, newest first, whichever endpoint (current or deleted) they were for. A
 * `paymentId` that is not of an issued id's form names no payment, so it matches nothing (ids.ts, isPaymentId).
 */
export async function listDeliveries(db: Db, f: DeliveryFilter): Promise<DeliveryRow[]> {
  if (f.paymentId && !isPaymentId(f.paymentId)) return [];
  const q = db('webhook_deliveries').where({ merchant_id: f.merchantId, live: f.live });
  if (f.status) q.andWhere('status', f.status);
  if (f.eventType) q.andWhere('event_type', f.eventType);
  if (f.eventId) q.andWhere('event_id', f.eventId);
  if (f.paymentId) q.andWhere('payment_id', f.paymentId);
  if (f.createdGte !== undefined) q.andWhere('created_at', '>=', f.createdGte);
  if (f.createdLt !== undefined) q.andWhere('created_at', '<', f.createdLt);
  if (f.startingAfter) {
    // A row comparison: an index bound on PostgreSQL, so a deep page does not walk the newer deliveries (§24.1).
    const { created_at, id } = f.startingAfter;
    q.andWhereRaw('(created_at, id) < (?, ?)', [created_at, id]);
  }
  const rows = await q
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit);
  return rows.map(deliveryFromRaw);
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: number;
  status: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
  delivered: boolean;
}

export async function insertAttempt(db: Db, row: AttemptRow): Promise<void> {
  await db('webhook_attempts').insert(row);
}

export async function listAttempts(db: Db, deliveryId: string): Promise<AttemptRow[]> {
  const rows = (await db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt')) as Record<
    string,
    unknown
  >[];
  return rows.map(attemptFromRaw);
}

export function attemptFromRaw(r: Record<string, unknown>): AttemptRow {
  return {
    ...(r as unknown as AttemptRow),
    started_at: Number(r.started_at),
    status: num(r.status),
    latency_ms: Number(r.latency_ms),
    delivered: bool(r.delivered),
  };
}

/**
 * The outbox events of a merchant and mode, created at or after `since`, of the given types, that this endpoint has
 * not received and is not receiving: no delivery of theirs to it is delivered or pending. Test events have no outbox
 * row, so they are never among them.
 */
export async function findUnreceivedEvents(
  db: Db,
  q: { endpointId: string; merchantId: string; live: boolean; since: number; types: string[] },
): Promise<{ id: string; type: string; payment_id: string }[]> {
  return (await db('events')
    .select('id', 'type', 'payment_id')
    .where({ merchant_id: q.merchantId, live: q.live })
    .andWhere('created_at', '>=', q.since)
    .whereIn('type', q.types)
    .whereNotExists(
      db('webhook_deliveries')
        .select(db.raw('1'))
        .whereRaw('webhook_deliveries.event_id = events.id')
        .andWhere('endpoint_id', q.endpointId)
        .whereIn('status', ['delivered', 'pending']),
    )
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])) as { id: string; type: string; payment_id: string }[];
}

/**
 * The failed deliveries of an endpoint created at or after `since` whose event has no delivery to it in flight
 * (pending) or delivered since (at the same moment or later), so a repeated bulk resend sends nothing twice. Oldest
 * first; an event failed more than once appears once per failed delivery, and the caller keeps one.
 */
export async function findResendableFailures(db: Db, endpointId: string, since: number): Promise<DeliveryRow[]> {
  const rows = (await db('webhook_deliveries as d')
    .select('d.*')
    .where({ 'd.endpoint_id': endpointId, 'd.status': 'failed' })
    .andWhere('d.created_at', '>=', since)
    .whereNotExists(
      db('webhook_deliveries as later')
        .select(db.raw('1'))
        .whereRaw('later.endpoint_id = d.endpoint_id')
        .whereRaw('later.event_id = d.event_id')
        .andWhere((w) =>
          w
            .where('later.status', 'pending')
            .orWhere((w2) => w2.where('later.status', 'delivered').andWhereRaw('later.created_at >= d.created_at')),
        ),
    )
    .orderBy([
      { column: 'd.created_at', order: 'asc' },
      { column: 'd.id', order: 'asc' },
    ])) as Record<string, unknown>[];
  return rows.map(deliveryFromRaw);
}

export interface ClaimedDelivery {
  delivery: DeliveryRow;
  endpoint: EndpointRow | null;
  /** The envelope to send: the delivery's own (test events) or its outbox event's. */
  payload: string | null;
  /** The outbox event's envelope sealed, when its payment has a buyer (payments/eventPayload.ts); then `payload` is ''. */
  payloadSealed?: string | null;
}

/**
 * Runs a named statement on a connection of the knex pool: PostgreSQL parses and plans it once per connection
 * instead of on every call (planning the claim cost more than running it), and knex's query building is skipped.
 */
async function runPrepared<R>(db: Knex, name: string, text: string, values: unknown[]): Promise<R[]> {
  const conn = (await db.client.acquireConnection()) as {
    query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
  };
  try {
    return (await conn.query({ name, text, values })).rows;
  } finally {
    await db.client.releaseConnection(conn);
  }
}

interface ClaimRequest {
  id: string;
  owner: string;
  now: number;
  leaseMs: number;
}

interface DeliveredRecord {
  owner: string;
  attempt: AttemptRow;
  updatedAt: number;
}

export type Step = { claim: ClaimRequest } | { record: DeliveredRecord };
export type StepResult = ClaimedDelivery | null | boolean;

/** Row counts are rounded up to a power of two (the rest padded with NULL rows, which match nothing). */
const bucket = (n: number) => (n === 0 ? 0 : 2 ** Math.ceil(Math.log2(n)));

/** `VALUES` rows of typed placeholders from `$first`: `($1::text, $2::bigint), ($3::text, $4::bigint)…`. */
function valuesRows(types: string[], rows: number, first: number): string {
  const out: string[] = [];
  for (let r = 0; r < rows; r++)
    out.push(`(${types.map((t, i) => `$${first + r * types.length + i}::${t}`).join(', ')})`);
  return out.join(', ');
}

const CLAIM_TYPES = ['text', 'text', 'bigint', 'bigint'];
const RECORD_TYPES = ['text', 'text', 'int', 'bigint', 'int', 'int', 'text', 'text', 'bigint'];

/**
 * The hot path of every attempt in one statement, for `claims` claims and `records` records at once (either may be
 * 0). The statement has one placeholder per value rather than array parameters: PostgreSQL cannot see an array's
 * length when it plans a prepared statement once for all calls, would guess ten rows, and so would plan it anew on
 * every call (which cost more than running it); one text per (rounded) row count keeps the cached plan right.
 *
 * - A claim leases a delivery that is pending, due and unleased (or whose lease passed) at that claim's time, and
 *   reads its endpoint and its event's payload, exactly as `claimDelivery` does alone. It finds each row by its
 *   primary key, and its status test is written `(…) IS TRUE` so that it cannot be an index condition: the
 *   statistics see few pending deliveries among millions delivered, and with `status = 'pending'` indexable the
 *   planner read every pending delivery through the due index and hashed them against the claims, a cost that grows
 *   with the backlog (an endpoint's outage, a burst of events) instead of one lookup per claim (§24.18).
 * - A record closes a delivery as delivered and inserts its attempt row, only where that record's owner still holds
 *   the lease, exactly as the transactional path does.
 *
 * Each row carries its own owner, which is unique per attempt, so the answer says by owner which claims won and
 * which records were kept. Two changes to one delivery in one statement (two claims, or a claim and a record) change
 * it once, and only the one that took effect comes back: the same outcome as two statements in some order.
 * PostgreSQL runs every data-modifying CTE to completion whether or not the query reads it.
 */
export function stepSql(claims: number, records: number): string {
  const ctes: string[] = [];
  const selects: string[] = [];
  if (claims > 0) {
    ctes.push(
      `c (id, owner, now, lease_until) AS (VALUES ${valuesRows(CLAIM_TYPES, claims, 1)})`,
      `claimed AS (
        UPDATE webhook_deliveries w SET lease_until = c.lease_until, lease_owner = c.owner, updated_at = c.now
        FROM c
        WHERE w.id = c.id AND (w.status = 'pending') IS TRUE AND w.next_attempt_at <= c.now
          AND (w.lease_until IS NULL OR w.lease_until < c.now)
        RETURNING w.*
      )`,
    );
    selects.push(`SELECT claimed.lease_owner AS owner, to_jsonb(claimed.*) AS delivery_row,
        to_jsonb(e.*) AS endpoint_row, ev.payload AS event_payload,
        ev.payload_sealed AS event_payload_sealed
      FROM claimed LEFT JOIN webhook_endpoints e ON e.id = claimed.endpoint_id
        LEFT JOIN events ev ON ev.id = claimed.event_id`);
  }
  if (records > 0) {
    ctes.push(
      `r (id, owner, attempt, started_at, status, latency_ms, error, response_body, updated_at) AS (
        VALUES ${valuesRows(RECORD_TYPES, records, claims * CLAIM_TYPES.length + 1)}
      )`,
      `recorded AS (
        UPDATE webhook_deliveries w
        SET status = 'delivered', attempt_count = r.attempt, next_attempt_at = NULL, delivered_at = r.started_at,
            updated_at = r.updated_at, lease_until = NULL, lease_owner = NULL
        FROM r
        WHERE w.id = r.id AND w.lease_owner = r.owner
        RETURNING w.id, r.owner
      )`,
      `attempts AS (
        INSERT INTO webhook_attempts
          (delivery_id, attempt, started_at, status, latency_ms, error, response_body, delivered)
        SELECT r.id, r.attempt, r.started_at, r.status, r.latency_ms, r.error, r.response_body, true
        FROM r JOIN recorded ON recorded.id = r.id AND recorded.owner = r.owner
      )`,
    );
    selects.push(
      'SELECT owner, NULL::jsonb AS delivery_row, NULL::jsonb AS endpoint_row, NULL::text AS event_payload, NULL::text AS event_payload_sealed FROM recorded',
    );
  }
  return `WITH ${ctes.join(',\n')}\n${selects.join('\nUNION ALL\n')}`;
}

type StepRaw = {
  owner: string;
  delivery_row: Record<string, unknown> | null;
  endpoint_row: Record<string, unknown> | null;
  event_payload: string | null;
  event_payload_sealed: string | null;
};

async function runSteps(db: Knex, stepTexts: Map<string, string>, steps: Step[]): Promise<StepResult[]> {
  const claims: ClaimRequest[] = [];
  const records: DeliveredRecord[] = [];
  for (const step of steps) {
    if ('claim' in step) claims.push(step.claim);
    else records.push(step.record);
  }
  const [n, m] = [bucket(claims.length), bucket(records.length)];
  const name = `paygate_webhook_step_${n}_${m}`;
  let text = stepTexts.get(name);
  if (text === undefined) stepTexts.set(name, (text = stepSql(n, m)));
  const values: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const c = claims[i];
    if (c) values.push(c.id, c.owner, c.now, c.now + c.leaseMs);
    else values.push(null, null, null, null);
  }
  for (let i = 0; i < m; i++) {
    const r = records[i];
    if (!r) values.push(null, null, null, null, null, null, null, null, null);
    else {
      const a = r.attempt;
      values.push(a.delivery_id, r.owner, a.attempt, a.started_at, a.status, a.latency_ms, a.error, a.response_body);
      values.push(r.updatedAt);
    }
  }
  const rows = await runPrepared<StepRaw>(db, name, text, values);
  const won = new Map<string, ClaimedDelivery>();
  const kept = new Set<string>();
  for (const row of rows) {
    if (row.delivery_row === null) {
      kept.add(row.owner);
      continue;
    }
    const delivery = deliveryFromRaw(row.delivery_row);
    won.set(row.owner, {
      delivery,
      endpoint: row.endpoint_row ? endpointFromRaw(row.endpoint_row) : null,
      payload: delivery.payload ?? row.event_payload,
      payloadSealed: delivery.payload === null ? row.event_payload_sealed : null,
    });
  }
  return steps.map((step) => ('claim' in step ? (won.get(step.claim.owner) ?? null) : kept.has(step.record.owner)));
}

/**
 * The claims and records of one process's attempts, combined into shared round trips, and the statement texts
 * already made (one per size bucket). One per runtime: runtime.ts builds it.
 */
export interface DeliverySteps {
  knex: Knex;
  step(item: Step): Promise<StepResult>;
}

export function createDeliverySteps(db: Knex): DeliverySteps {
  const stepTexts = new Map<string, string>();
  const combiner = new Combiner<Step, StepResult>((items) => runSteps(db, stepTexts, items));
  return { knex: db, step: (item) => combiner.add(item) };
}

/**
 * Claims a due delivery and reads what the attempt needs. On PostgreSQL this is one prepared statement (an UPDATE …
 * RETURNING inside a CTE joined to the endpoint and the event), shared with the claims and records that other
 * attempts of this process make at the same moment: delivery throughput is bound by round trips, and this is the
 * hot path of every attempt. SQLite has no data-modifying CTEs, and no network between us and it.
 */
export async function claimDeliveryWithContext(
  steps: DeliverySteps,
  id: string,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<ClaimedDelivery | null> {
  const db = steps.knex;
  if (dialectOf(db) === 'sqlite') {
    const delivery = await claimDelivery(db, id, owner, now, leaseMs);
    if (!delivery) return null;
    const endpoint = await findEndpoint(db, delivery.endpoint_id);
    const event =
      delivery.payload === null
        ? ((await db('events').select('payload', 'payload_sealed').where({ id: delivery.event_id }).first()) as
            { payload: string; payload_sealed: string | null } | undefined)
        : undefined;
    return {
      delivery,
      endpoint,
      payload: delivery.payload ?? event?.payload ?? null,
      payloadSealed: event?.payload_sealed ?? null,
    };
  }
  return (await steps.step({ claim: { id, owner, now, leaseMs } })) as ClaimedDelivery | null;
}

/**
 * Whether `recordDeliveredAttempt` is there to use: on PostgreSQL only. SQLite has no data-modifying CTEs, and no
 * network between us and it, so recording an attempt in a transaction costs it no round trips.
 */
export function recordsDeliveredAttemptInOneStatement(db: Knex): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Records a successful attempt and closes the delivery in one statement on PostgreSQL (shared with the claims and
 * records other attempts of this process make at the same moment); the attempt row is written only if we still held
 * the lease, exactly as the transactional path does. Returns false when the lease was lost.
 */
export async function recordDeliveredAttempt(
  steps: DeliverySteps,
  owner: string,
  attempt: AttemptRow,
  updatedAt: number,
): Promise<boolean> {
  return (await steps.step({ record: { owner, attempt, updatedAt } })) as boolean;
}
