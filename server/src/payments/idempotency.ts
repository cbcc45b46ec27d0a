/**
 * `Idempotency-Key` on create (docs/decisions.md §5, §10, §12): scoped per merchant and mode, kept 24 hours, and
 * only a created payment is stored. The in-flight row is committed on its own before the work starts, so a
 * concurrent request with the same key sees it at once (409) instead of waiting on a lock; the answer is stored in
 * the transaction that creates the payment, so a crash cannot leave a payment without its record.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  deleteIdempotencyKey,
  findIdempotencyKey,
  purgeIdempotencyKeys,
  type IdempotencyScope,
} from '../db/queries/idempotencyKeys.js';
import { ApiError } from '../errors.js';
import type { LifecycleDeps } from './lifecycle.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An in-flight row older than this belongs to a request that died (the process crashed between claim and commit);
 * it is well above the request timeout, so a live request is never taken over.
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

const lastPurge = new WeakMap<Knex, number>();

/** Deletes keys past their 24 hours, throttled so that a busy server pays for it about once a minute. */
export async function purgeExpiredIdempotencyKeys(deps: LifecycleDeps, force = false): Promise<number> {
  const now = deps.now();
  const last = lastPurge.get(deps.db.knex);
  if (!force && last !== undefined && now - last < PURGE_INTERVAL_MS) return 0;
  lastPurge.set(deps.db.knex, now);
  return purgeIdempotencyKeys(deps.db.knex, now - IDEMPOTENCY_TTL_MS);
}

export interface IdempotentAnswer<T> {
  status: number;
  body: T;
  /** True when this is the stored answer of an earlier request (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

/**
 * Runs `work` at most once per key: the caller that claims the key runs it inside a transaction that also stores
 * the answer; every other caller gets the stored answer (same body) or 409 `idempotency_conflict`.
 */
export async function withIdempotencyKey<T>(
  deps: LifecycleDeps,
  scope: { merchantId: string; live: boolean; key: string },
  body: unknown,
  work: (trx: Knex.Transaction) => Promise<{ status: number; body: T }>,
): Promise<IdempotentAnswer<T>> {
  const s: IdempotencyScope = { merchant_id: scope.merchantId, live: scope.live, key: scope.key };
  const hash = requestHash(body);
  await purgeExpiredIdempotencyKeys(deps);

  // A few rounds: the row we collided with may be released or taken over between our insert and our read.
  for (let round = 0; round < 3; round++) {
    const now = deps.now();
    const claim = { ...s, request_hash: hash, created_at: now };
    if (await claimIdempotencyKey(deps.db.knex, claim)) return runClaimed(deps, claim, work);

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

async function runClaimed<T>(
  deps: LifecycleDeps,
  claim: IdempotencyScope & { request_hash: string; created_at: number },
  work: (trx: Knex.Transaction) => Promise<{ status: number; body: T }>,
): Promise<IdempotentAnswer<T>> {
  try {
    return await deps.db.knex.transaction(async (trx) => {
      const answer = await work(trx);
      const stored = await completeIdempotencyKey(trx, claim, {
        status: answer.status,
        body: JSON.stringify(answer.body),
      });
      // Our claim was taken over as abandoned: roll the work back rather than let two requests both create.
      if (!stored) {
        throw new ApiError('idempotency_conflict', `Idempotency-Key ${claim.key} was taken over by a later request.`);
      }
      return { ...answer, replayed: false };
    });
  } catch (err) {
    // A refused or failed request stores nothing, so the caller may fix it and retry with the same key.
    await deleteIdempotencyKey(deps.db.knex, claim, { created_at: claim.created_at, inFlightOnly: true }).catch(
      (releaseErr: unknown) => deps.logger.error({ err: releaseErr }, 'could not release an idempotency key'),
    );
    throw err;
  }
}
