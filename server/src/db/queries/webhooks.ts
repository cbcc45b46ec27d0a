import type { Knex } from 'knex';

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
}

function deliveryFromRaw(raw: Record<string, unknown>): DeliveryRow {
  return {
    ...(raw as unknown as DeliveryRow),
    live: bool(raw.live),
    attempt_count: Number(raw.attempt_count),
    next_attempt_at: num(raw.next_attempt_at),
    lease_until: num(raw.lease_until),
    created_at: Number(raw.created_at),
    delivered_at: num(raw.delivered_at),
    updated_at: Number(raw.updated_at),
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

/** A merchant's deliveries of one mode, newest first, whichever endpoint (current or deleted) they were for. */
export async function listDeliveries(db: Db, f: DeliveryFilter): Promise<DeliveryRow[]> {
  const q = db('webhook_deliveries').where({ merchant_id: f.merchantId, live: f.live });
  if (f.status) q.andWhere('status', f.status);
  if (f.eventType) q.andWhere('event_type', f.eventType);
  if (f.eventId) q.andWhere('event_id', f.eventId);
  if (f.paymentId) q.andWhere('payment_id', f.paymentId);
  if (f.createdGte !== undefined) q.andWhere('created_at', '>=', f.createdGte);
  if (f.createdLt !== undefined) q.andWhere('created_at', '<', f.createdLt);
  if (f.startingAfter) {
    const { created_at, id } = f.startingAfter;
    q.andWhere((w) =>
      w
        .where('created_at', '<', created_at)
        .orWhere((w2) => w2.where('created_at', created_at).andWhere('id', '<', id)),
    );
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
  return rows.map((r) => ({
    ...(r as unknown as AttemptRow),
    started_at: Number(r.started_at),
    status: num(r.status),
    latency_ms: Number(r.latency_ms),
    delivered: bool(r.delivered),
  }));
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
}

/**
 * Claims a due delivery and reads what the attempt needs. On PostgreSQL this is one statement (an UPDATE … RETURNING
 * inside a CTE joined to the endpoint and the event): delivery throughput is bound by round trips, and this is the
 * hot path of every attempt. SQLite has no data-modifying CTEs, and no network between us and it.
 */
export async function claimDeliveryWithContext(
  db: Knex,
  id: string,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<ClaimedDelivery | null> {
  if (db.client.config.client !== 'pg') {
    const delivery = await claimDelivery(db, id, owner, now, leaseMs);
    if (!delivery) return null;
    const endpoint = await findEndpoint(db, delivery.endpoint_id);
    const event =
      delivery.payload === null
        ? ((await db('events').select('payload').where({ id: delivery.event_id }).first()) as
            { payload: string } | undefined)
        : undefined;
    return { delivery, endpoint, payload: delivery.payload ?? event?.payload ?? null };
  }
  const result = (await db.raw(
    `WITH d AS (
       UPDATE webhook_deliveries SET lease_until = ?, lease_owner = ?, updated_at = ?
       WHERE id = ? AND status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
       RETURNING *
     )
     SELECT d.*, to_jsonb(e.*) AS endpoint_row, ev.payload AS event_payload
     FROM d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id LEFT JOIN events ev ON ev.id = d.event_id`,
    [now + leaseMs, owner, now, id, now, now],
  )) as {
    rows: (Record<string, unknown> & { endpoint_row: Record<string, unknown> | null; event_payload: string | null })[];
  };
  const row = result.rows[0];
  if (!row) return null;
  const { endpoint_row, event_payload, ...raw } = row;
  const delivery = deliveryFromRaw(raw);
  return {
    delivery,
    endpoint: endpoint_row ? endpointFromRaw(endpoint_row) : null,
    payload: delivery.payload ?? event_payload,
  };
}

/**
 * Records a successful attempt and closes the delivery in one statement on PostgreSQL; the attempt row is written
 * only if we still held the lease, exactly as the transactional path does. Returns false when the lease was lost.
 */
export async function recordDeliveredAttempt(
  db: Knex,
  owner: string,
  attempt: AttemptRow,
  updatedAt: number,
): Promise<boolean> {
  const result = (await db.raw(
    `WITH d AS (
       UPDATE webhook_deliveries
       SET status = 'delivered', attempt_count = ?, next_attempt_at = NULL, delivered_at = ?, updated_at = ?,
           lease_until = NULL, lease_owner = NULL
       WHERE id = ? AND lease_owner = ?
       RETURNING id
     )
     INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status, latency_ms, error, response_body, delivered)
     SELECT d.id, ?, ?, ?, ?, ?, ?, true FROM d`,
    [
      attempt.attempt,
      attempt.started_at,
      updatedAt,
      attempt.delivery_id,
      owner,
      attempt.attempt,
      attempt.started_at,
      attempt.status,
      attempt.latency_ms,
      attempt.error,
      attempt.response_body,
    ],
  )) as { rowCount: number };
  return result.rowCount === 1;
}
