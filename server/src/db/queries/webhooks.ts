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

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payment_id: string | null;
  merchant_id: string;
  live: boolean;
  payload: string | null;
  status: 'pending' | 'delivered' | 'failed' | 'abandoned';
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
  const count = await db('webhook_deliveries')
    .where({ id, status: 'pending' })
    .andWhere('next_attempt_at', '<=', now)
    .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
    .update({ lease_until: now + leaseMs, lease_owner: owner, updated_at: now });
  if (count !== 1) return null;
  return findDelivery(db, id);
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

export async function abandonPendingDeliveries(db: Db, endpointId: string, now: number): Promise<number> {
  return db('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'pending' })
    .update({ status: 'abandoned', next_attempt_at: null, updated_at: now });
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
  endpointId: string;
  status?: DeliveryRow['status'];
  eventType?: string;
  paymentId?: string;
  createdGte?: number;
  createdLt?: number;
  startingAfter?: { created_at: number; id: string };
  limit: number;
}

export async function listDeliveries(db: Db, f: DeliveryFilter): Promise<DeliveryRow[]> {
  const q = db('webhook_deliveries').where('endpoint_id', f.endpointId);
  if (f.status) q.andWhere('status', f.status);
  if (f.eventType) q.andWhere('event_type', f.eventType);
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

/** Events of the last window for a merchant and mode that this endpoint never delivered. */
export async function findUndeliveredEvents(
  db: Db,
  endpointId: string,
  merchantId: string,
  live: boolean,
  since: number,
): Promise<{ id: string; type: string; payment_id: string }[]> {
  return (await db('events')
    .select('id', 'type', 'payment_id')
    .where({ merchant_id: merchantId, live })
    .andWhere('created_at', '>=', since)
    .whereNotExists(
      db('webhook_deliveries')
        .select(db.raw('1'))
        .whereRaw('webhook_deliveries.event_id = events.id')
        .andWhere({ endpoint_id: endpointId, status: 'delivered' }),
    )
    .orderBy('created_at')) as { id: string; type: string; payment_id: string }[];
}

export async function findFailedDeliveriesSince(db: Db, endpointId: string, since: number): Promise<DeliveryRow[]> {
  const rows = await db('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'failed' })
    .andWhere('created_at', '>=', since)
    .orderBy('created_at');
  return rows.map(deliveryFromRaw);
}
