/**
 * Login throttling, in the database so it holds across any number of processes: per account (a keyed hash of the
 * normalised email, whether or not a user has it) 5 failures within 15 minutes lock it for 15 minutes; per client
 * address 20 failures within 15 minutes lock the address for 15 minutes. A locked sign-in answers
 * 429 rate_limited with Retry-After and one message, whatever the reason and whether or not the email exists. A
 * success clears the account's count (not the address's). An attempt is counted before its password is checked
 * (docs/decisions.md §21.6): checking first and counting after let any number of parallel attempts through.
 */
import {
  clearThrottle,
  lockedUntil,
  releaseAttempt,
  reserveAttempt,
  type ThrottleRule,
} from '../db/queries/throttleCounts.js';
import { ApiError } from '../errors.js';
import type { UsersDeps } from './usersDeps.js';
import { keyedHash } from './serverKeys.js';
import { normaliseEmail } from './userAccounts.js';

const MINUTE = 60_000;
export const ACCOUNT_RULE: ThrottleRule = { windowMs: 15 * MINUTE, limit: 5, lockMs: 15 * MINUTE };
export const ADDRESS_RULE: ThrottleRule = { windowMs: 15 * MINUTE, limit: 20, lockMs: 15 * MINUTE };

export interface ThrottleKeys {
  account: string;
  address: string | null;
}

export function throttleKeys(runtime: UsersDeps, email: string, ip: string | null): ThrottleKeys {
  const hash = (v: string) => keyedHash(runtime, 'login throttle', v).toString('hex');
  return {
    account: `account:${hash(normaliseEmail(email))}`,
    address: ip === null ? null : `address:${hash(ip)}`,
  };
}

const list = (keys: ThrottleKeys) => (keys.address === null ? [keys.account] : [keys.account, keys.address]);

const locked = (runtime: UsersDeps, until: number) =>
  new ApiError('rate_limited', 'Too many failed sign-in attempts; try again later.', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil((until - runtime.now()) / 1000))) },
  });

/**
 * Takes one attempt for the account and the address, in one transaction, before any password is checked; 429
 * rate_limited with Retry-After (and nothing counted) while either is locked. Every reserved attempt ends in
 * `settleLoginAttempt`.
 */
export async function reserveLoginAttempt(
  runtime: UsersDeps,
  keys: ThrottleKeys,
): Promise<{
  /** This attempt reached the account's limit: if it fails, the account is locked. */ locksAccount: boolean;
}> {
  const now = runtime.now();
  return runtime.db.knex.transaction(async (trx) => {
    const account = await reserveAttempt(trx, keys.account, now, ACCOUNT_RULE);
    const refused =
      account === null ||
      (keys.address !== null && (await reserveAttempt(trx, keys.address, now, ADDRESS_RULE)) === null);
    // Thrown inside, so the account's count taken before a refusal for the address rolls back with it.
    if (refused) throw locked(runtime, (await lockedUntil(trx, list(keys), now)) ?? now + ACCOUNT_RULE.lockMs);
    return { locksAccount: account === ACCOUNT_RULE.limit };
  });
}

/**
 * How a reserved attempt ended: `failed` keeps it counted; `succeeded` clears the account's count (not the
 * address's, whose attempt is given back); `released` (the password was right and a second factor is still to come,
 * or the check never finished) gives both back.
 */
export type AttemptOutcome = 'failed' | 'succeeded' | 'released';

export async function settleLoginAttempt(
  runtime: UsersDeps,
  keys: ThrottleKeys,
  outcome: AttemptOutcome,
): Promise<void> {
  if (outcome === 'failed') return;
  const db = runtime.db.knex;
  if (outcome === 'succeeded') await clearThrottle(db, keys.account);
  else await releaseAttempt(db, keys.account, ACCOUNT_RULE);
  if (keys.address !== null) await releaseAttempt(db, keys.address, ADDRESS_RULE);
}
