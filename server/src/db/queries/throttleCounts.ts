/**
 * Failed sign-ins per key (an account's or a client address's keyed hash), counted in the database so every
 * process sees the same counts. One upsert per failure: the window restarts once it has passed, and the key is
 * locked when the count reaches the limit inside the window.
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

export async function recordFailure(db: Db, key: string, now: number, rule: ThrottleRule): Promise<void> {
  const expired = now - rule.windowMs;
  await db('login_throttle')
    .insert({ key, failures: 1, window_started_at: now, locked_until: rule.limit <= 1 ? now + rule.lockMs : null })
    .onConflict('key')
    .merge({
      failures: db.raw('CASE WHEN login_throttle.window_started_at <= ? THEN 1 ELSE login_throttle.failures + 1 END', [
        expired,
      ]),
      window_started_at: db.raw(
        'CASE WHEN login_throttle.window_started_at <= ? THEN ? ELSE login_throttle.window_started_at END',
        [expired, now],
      ),
      locked_until: db.raw(
        `CASE WHEN login_throttle.window_started_at <= ? THEN NULL
              WHEN login_throttle.failures + 1 >= ? THEN ?
              ELSE login_throttle.locked_until END`,
        [expired, rule.limit, now + rule.lockMs],
      ),
    });
}

export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db('login_throttle').where({ key }).delete();
}
