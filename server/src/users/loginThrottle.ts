/**
 * Login throttling, in the database so it holds across any number of processes: per account (a keyed hash of the
 * normalised email, whether or not a user has it) 5 failures within 15 minutes lock it for 15 minutes; per client
 * address 20 failures within 15 minutes lock the address for 15 minutes. A locked sign-in answers
 * 429 rate_limited with Retry-After and one message, whatever the reason and whether or not the email exists. A
 * success clears the account's count (not the address's).
 */
import { clearThrottle, lockedUntil, recordFailure, type ThrottleRule } from '../db/queries/throttleCounts.js';
import { ApiError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { keyedHash } from './serverKeys.js';
import { normaliseEmail } from './userAccounts.js';

const MINUTE = 60_000;
export const ACCOUNT_RULE: ThrottleRule = { windowMs: 15 * MINUTE, limit: 5, lockMs: 15 * MINUTE };
export const ADDRESS_RULE: ThrottleRule = { windowMs: 15 * MINUTE, limit: 20, lockMs: 15 * MINUTE };

export interface ThrottleKeys {
  account: string;
  address: string | null;
}

export function throttleKeys(runtime: Runtime, email: string, ip: string | null): ThrottleKeys {
  const hash = (v: string) => keyedHash(runtime, 'login throttle', v).toString('hex');
  return {
    account: `account:${hash(normaliseEmail(email))}`,
    address: ip === null ? null : `address:${hash(ip)}`,
  };
}

const list = (keys: ThrottleKeys) => (keys.address === null ? [keys.account] : [keys.account, keys.address]);

/** 429 rate_limited with Retry-After while the account or the address is locked. */
export async function refuseWhileLocked(runtime: Runtime, keys: ThrottleKeys): Promise<void> {
  const now = runtime.now();
  const until = await lockedUntil(runtime.db.knex, list(keys), now);
  if (until !== null) {
    throw new ApiError('rate_limited', 'Too many failed sign-in attempts; try again later.', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil((until - now) / 1000))) },
    });
  }
}

export async function recordLoginFailure(runtime: Runtime, keys: ThrottleKeys): Promise<void> {
  const now = runtime.now();
  await recordFailure(runtime.db.knex, keys.account, now, ACCOUNT_RULE);
  if (keys.address !== null) await recordFailure(runtime.db.knex, keys.address, now, ADDRESS_RULE);
}

export async function recordLoginSuccess(runtime: Runtime, keys: ThrottleKeys): Promise<void> {
  await clearThrottle(runtime.db.knex, keys.account);
}
