/**
 * This process's bound on password hashing (docs/decisions.md §21.6). Each check costs about 0.3 s of the libuv
 * pool (scrypt at 2^17), is unauthenticated, and the pool has 4 threads that DNS lookups and file reads share: so at
 * most `perAccount` checks for one account and `overall` checks in all run at once here, and a request beyond that
 * is refused at once (429 rate_limited, Retry-After 1) rather than queued behind them. The database reservation
 * (loginThrottle.ts) bounds how many checks an account gets across processes; this bounds what one process spends.
 */
import { ApiError } from '../errors.js';
import { DummyHashes, verifyNothing, verifyPassword } from './passwords.js';

export interface SignInGateOptions {
  /** Password checks in flight at once for one account (its throttle key). */
  perAccount: number;
  /** Password checks in flight at once in this process. */
  overall: number;
  /** The password check itself; tests wrap it to count and hold checks. */
  verifyPassword: (password: string, encoded: string) => Promise<boolean>;
}

export const DEFAULT_SIGN_IN_GATE: SignInGateOptions = { perAccount: 2, overall: 4, verifyPassword };

export interface SignInGate {
  /** Runs `work` in one of the slots of `accountKey`; throws 429 rate_limited at once when none is free. */
  hold<T>(accountKey: string, work: () => Promise<T>): Promise<T>;
  verifyPassword(password: string, encoded: string): Promise<boolean>;
  /** A check against nothing at this cost, as long as a real one (passwords.ts `verifyNothing`); always false. */
  verifyNothing(password: string, log2N: number): Promise<false>;
}

const busy = () =>
  new ApiError('rate_limited', 'Too many sign-in attempts are being checked right now; try again in a moment.', {
    headers: { 'Retry-After': '1' },
  });

export function createSignInGate(options: Partial<SignInGateOptions> = {}): SignInGate {
  const { perAccount, overall, verifyPassword: verify } = { ...DEFAULT_SIGN_IN_GATE, ...options };
  const inFlight = new Map<string, number>();
  const dummies = new DummyHashes();
  let total = 0;
  return {
    async hold(accountKey, work) {
      const mine = inFlight.get(accountKey) ?? 0;
      if (total >= overall || mine >= perAccount) throw busy();
      total += 1;
      inFlight.set(accountKey, mine + 1);
      try {
        return await work();
      } finally {
        total -= 1;
        const left = (inFlight.get(accountKey) ?? 1) - 1;
        if (left === 0) inFlight.delete(accountKey);
        else inFlight.set(accountKey, left);
      }
    },
    verifyPassword: verify,
    verifyNothing: (password, log2N) => verifyNothing(password, log2N, verify, dummies),
  };
}
