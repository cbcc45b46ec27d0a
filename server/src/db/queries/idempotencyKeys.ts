import type { Knex } from 'knex';

export interface IdempotencyScope {
  merchant_id: string;
  live: boolean;
  key: string;
}

export interface IdempotencyRow extends IdempotencyScope {
  request_hash: string;
  /** null while the first request with this key is in flight. */
  response_status: number | null;
  response_body: string | null;
  created_at: number;
}

type RawRow = Omit<IdempotencyRow, 'live'> & { live: boolean | number };

function fromRaw(raw: RawRow): IdempotencyRow {
  return {
    ...raw,
    live: raw.live === true || raw.live === 1,
    response_status: raw.response_status === null ? null : Number(raw.response_status),
    created_at: Number(raw.created_at),
  };
}

/**
 * Inserts an in-flight row (no answer yet) unless one exists, as servers before `insertAnsweredKeys` did while
 * their create ran: such rows may still appear during a rolling upgrade, and tests make them.
 */
export async function claimIdempotencyKey(
  db: Knex | Knex.Transaction,
  row: IdempotencyScope & { request_hash: string; created_at: number },
): Promise<boolean> {
  const inserted = (await db('idempotency_keys')
    .insert({ ...row, response_status: null, response_body: null })
    .onConflict(['merchant_id', 'live', 'key'])
    .ignore()
    .returning(['key'])) as unknown[];
  return inserted.length === 1;
}

export type AnsweredKeyRow = IdempotencyScope & {
  request_hash: string;
  created_at: number;
  response_status: number;
  response_body: string;
};

/** The identity of a key's scope, as one string. */
export function scopeId(scope: IdempotencyScope): string {
  return `${scope.merchant_id}\u0000${scope.live ? 1 : 0}\u0000${scope.key}`;
}

/** The rows sorted by scope: the order in which every insert of keys takes their locks. */
export function inScopeOrder<T extends IdempotencyScope>(rows: T[]): T[] {
  return [...rows].sort((a, b) => {
    const x = scopeId(a);
    const y = scopeId(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * Inserts keys with their answers, each unless its scope holds a key already; answers, per row, whether it was
 * inserted. The rows must name distinct scopes. Run in the transaction that creates the payments: the primary key
 * decides every race, and on PostgreSQL a row another transaction has inserted but not yet committed makes this
 * one wait for that transaction's outcome. Rows go in scope order, so that two transactions inserting overlapping
 * keys take their locks in one order and cannot deadlock.
 */
export async function insertAnsweredKeys(db: Knex.Transaction, rows: AnsweredKeyRow[]): Promise<boolean[]> {
  if (rows.length === 0) return [];
  const inserted = (await db('idempotency_keys')
    .insert(inScopeOrder(rows))
    .onConflict(['merchant_id', 'live', 'key'])
    .ignore()
    .returning(['merchant_id', 'live', 'key'])) as RawRow[];
  const ids = new Set(inserted.map((raw) => scopeId({ ...raw, live: raw.live === true || raw.live === 1 })));
  return rows.map((row) => ids.has(scopeId(row)));
}

export async function findIdempotencyKey(
  db: Knex | Knex.Transaction,
  scope: IdempotencyScope,
): Promise<IdempotencyRow | null> {
  const raw = (await db('idempotency_keys').where(scope).first()) as RawRow | undefined;
  return raw ? fromRaw(raw) : null;
}

/** Removes a row only if it is still exactly the one the caller saw (its creation time), so a newer claim survives. */
export async function deleteIdempotencyKey(
  db: Knex | Knex.Transaction,
  scope: IdempotencyScope,
  seen: { created_at: number; inFlightOnly?: boolean },
): Promise<boolean> {
  const query = db('idempotency_keys').where({ ...scope, created_at: seen.created_at });
  if (seen.inFlightOnly) query.whereNull('response_status');
  return (await query.delete()) === 1;
}

/** Deletes every key created before `before` (milliseconds); answers how many went. */
export async function purgeIdempotencyKeys(db: Knex | Knex.Transaction, before: number): Promise<number> {
  return db('idempotency_keys').where('created_at', '<', before).delete();
}
