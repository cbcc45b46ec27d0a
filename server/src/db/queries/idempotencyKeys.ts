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
 * Inserts the in-flight row unless one exists. The primary key decides a race, on SQLite and PostgreSQL alike:
 * exactly one concurrent caller gets `true`.
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

export async function findIdempotencyKey(
  db: Knex | Knex.Transaction,
  scope: IdempotencyScope,
): Promise<IdempotencyRow | null> {
  const raw = (await db('idempotency_keys').where(scope).first()) as RawRow | undefined;
  return raw ? fromRaw(raw) : null;
}

/** Stores the answer on the caller's own in-flight row; false when that row is no longer the caller's. */
export async function completeIdempotencyKey(
  db: Knex | Knex.Transaction,
  claim: IdempotencyScope & { request_hash: string; created_at: number },
  response: { status: number; body: string },
): Promise<boolean> {
  const count = await db('idempotency_keys')
    .where(claim)
    .whereNull('response_status')
    .update({ response_status: response.status, response_body: response.body });
  return count === 1;
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
