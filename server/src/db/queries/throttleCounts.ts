/**
 * Sign-in attempts per key (an account's or a client address's keyed hash, or an invitation's id), counted in the
 * database so every process sees the same counts. An attempt is counted before its password is checked and given
 * back when it succeeds, so the count is of failures and of checks still running; the window restarts once it has
 * passed, and the key is locked when the count reaches the limit inside the window.
 */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface ThrottleRow {
  key: string;
  failures: number;
  window_started_at: number;
  locked_until: number | null;
}

/** The latest lock end among `keys` that is still in the future, or null. */
export async function lockedUntil(db: Db, keys: string[], now: number): Promise<number | null> {
  const row = (await db('login_throttle')
    .whereIn('key', keys)
    .andWhere('locked_until', '>', now)
    .max({
      until: 'locked_until',
    })
    .first()) as { until: number | string | null } | undefined;
  return row?.until === null || row?.until === undefined ? null : Number(row.until);
}

export interface ThrottleRule {
  windowMs: number;
  limit: number;
  lockMs: number;
}

/**
 * Takes one attempt under `key` before its credentials are checked, and answers the attempt's number in the
 * window (its own only inside a transaction: outside, a later attempt may be counted before the read), or null when
 * the key is locked (or its window is full): then nothing changes. A key's row is made first
 * (a no-op when it exists); then one conditional update counts the attempt, so concurrent attempts each see the
 * count of those before them and at most `limit` pass. The attempt that reaches the limit locks the key at once, not
 * when it fails: a success clears or releases it (`releaseAttempt`).
 */
export async function reserveAttempt(db: Db, key: string, now: number, rule: ThrottleRule): Promise<number | null> {
  await db('login_throttle')
    .insert({ key, failures: 0, window_started_at: now, locked_until: null })
    .onConflict('key')
    .ignore();
  const expired = now - rule.windowMs;
  const counted = 'CASE WHEN window_started_at <= ? THEN 1 ELSE failures + 1 END';
  const updated = await db('login_throttle')
    .where({ key })
    .andWhere((q) => q.whereNull('locked_until').orWhere('locked_until', '<=', now))
    .andWhere((q) => q.where('window_started_at', '<=', expired).orWhere('failures', '<', rule.limit))
    .update({
      failures: db.raw(counted, [expired]),
      window_started_at: db.raw('CASE WHEN window_started_at <= ? THEN ? ELSE window_started_at END', [expired, now]),
      locked_until: db.raw(`CASE WHEN ${counted} >= ? THEN CAST(? AS BIGINT) ELSE NULL END`, [
        expired,
        rule.limit,
        now + rule.lockMs,
      ]),
    });
  if (updated !== 1) return null;
  const row = (await db('login_throttle').select('failures').where({ key }).first()) as { failures: number | string };
  return Number(row.failures);
}

/**
 * Gives back an attempt `reserveAttempt` took that turned out not to be a failure, and lifts the lock it may have
 * set. A window that restarted meanwhile only loses one count, never below zero.
 */
export async function releaseAttempt(db: Db, key: string, rule: ThrottleRule): Promise<void> {
  await db('login_throttle')
    .where({ key })
    .update({
      locked_until: db.raw('CASE WHEN failures - 1 < ? THEN NULL ELSE locked_until END', [rule.limit]),
      failures: db.raw('CASE WHEN failures > 0 THEN failures - 1 ELSE 0 END'),
    });
}

export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db('login_throttle').where({ key }).delete();
}
