/**
 * `Idempotency-Key` on create (docs/decisions.md §5, §10, §12): scoped per merchant and mode, kept 24 hours, and
 * only a created payment is stored. The key is inserted with its answer in the transaction that creates the
 * payment (in the group commit of creates, payments/lifecycle.ts), so both commit or neither does: a crash or a
 * lost commit cannot leave a payment without its key, and a retry after either replays or creates, never both.
 * A concurrent request with the same key finds the key taken (on PostgreSQL once the holder's transaction ends)
 * and replays its answer.
 */
import { createHash } from 'node:crypto';
import {
  deleteIdempotencyKey,
  findIdempotencyKey,
  purgeIdempotencyKeys,
  type IdempotencyScope,
} from '../db/queries/idempotencyKeys.js';
import { ApiError } from '../errors.js';
import type { LifecycleDeps } from './lifecycle.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An in-flight row (one without an answer, as servers before the answered insert wrote while their create ran)
 * older than this belongs to a request that died; it is well above the request timeout, so a live request is never
 * taken over.
 */
export const IN_FLIGHT_TIMEOUT_MS = 60_000;
/** Expired keys are purged by whichever create comes along, at most this often per database. */
const PURGE_INTERVAL_MS = 60_000;

const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/** Validates the header value; undefined when the request carries no key. */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!PRINTABLE_ASCII.test(raw)) {
    throw new ApiError('header_not_ascii', 'The Idempotency-Key header must contain printable ASCII characters only.');
  }
  if (raw.length < 1 || raw.length > 255) {
    throw new ApiError('params_validation', 'Idempotency-Key must be 1 to 255 characters.');
  }
  return raw;
}

/** JSON with object keys sorted at every depth, so the same body hashes the same whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

/**
 * When this runtime last purged expired keys: the purge is throttled so that a busy server pays for it about once a
 * minute. One per runtime (runtime.ts builds it); another process purging too only costs a statement.
 */
export class KeyPurgeSchedule {
  private last: number | undefined;

  /** Whether a purge is due at `now`; if so, it counts as done from `now`. */
  take(now: number, force = false): boolean {
    if (!force && this.last !== undefined && now - this.last < PURGE_INTERVAL_MS) return false;
    this.last = now;
    return true;
  }
}

/** What a request under an `Idempotency-Key` needs. */
export interface IdempotencyDeps {
  db: LifecycleDeps['db'];
  now: () => number;
  keyPurges: KeyPurgeSchedule;
}

/** Deletes keys past their 24 hours, when a purge is due (`KeyPurgeSchedule`). */
export async function purgeExpiredIdempotencyKeys(deps: IdempotencyDeps, force = false): Promise<number> {
  const now = deps.now();
  if (!deps.keyPurges.take(now, force)) return 0;
  return purgeIdempotencyKeys(deps.db.knex, now - IDEMPOTENCY_TTL_MS);
}

export interface IdempotentAnswer<T> {
  status: number;
  body: T;
  /** True when this is the stored answer of an earlier request (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

/** The key a create under `Idempotency-Key` inserts with its answer (payments/lifecycle.ts `KeyedCreate`). */
export interface KeyClaim {
  scope: IdempotencyScope;
  requestHash: string;
  createdAt: number;
}

/**
 * Runs `attempt` until one creates (it inserts the key with its answer, in its own transaction) or the key is found
 * taken: then the stored answer is replayed (same body), or the answer is 409 `idempotency_conflict`. `attempt`
 * answers null when the key was taken and it did nothing.
 */
export async function withIdempotencyKey<T>(
  deps: IdempotencyDeps,
  scope: { merchantId: string; live: boolean; key: string },
  body: unknown,
  attempt: (claim: KeyClaim) => Promise<{ status: number; body: T } | null>,
): Promise<IdempotentAnswer<T>> {
  const s: IdempotencyScope = { merchant_id: scope.merchantId, live: scope.live, key: scope.key };
  const hash = requestHash(body);
  await purgeExpiredIdempotencyKeys(deps);

  // A few rounds: the key we collided with may be purged or taken over between our insert and our read.
  for (let round = 0; round < 3; round++) {
    const now = deps.now();
    const created = await attempt({ scope: s, requestHash: hash, createdAt: now });
    if (created) return { ...created, replayed: false };

    const existing = await findIdempotencyKey(deps.db.knex, s);
    if (!existing) continue;
    const expired = existing.created_at <= now - IDEMPOTENCY_TTL_MS;
    const abandoned = existing.response_status === null && existing.created_at <= now - IN_FLIGHT_TIMEOUT_MS;
    if (expired || abandoned) {
      await deleteIdempotencyKey(deps.db.knex, s, { created_at: existing.created_at, inFlightOnly: !expired });
      continue;
    }
    if (existing.request_hash !== hash) {
      throw new ApiError(
        'idempotency_conflict',
        `Idempotency-Key ${scope.key} was already used with a different request body.`,
      );
    }
    if (existing.response_status === null || existing.response_body === null) break;
    return { status: existing.response_status, body: JSON.parse(existing.response_body) as T, replayed: true };
  }
  throw new ApiError(
    'idempotency_conflict',
    `A request with Idempotency-Key ${scope.key} is still in progress; retry shortly with the same key and body.`,
  );
}
