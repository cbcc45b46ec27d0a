/**
 * Signing in: a slot of this process's sign-in gate, an attempt reserved in the login throttle, password (an unknown
 * email costs the same time as a wrong password), second factor, then a new session. Every refusal for wrong credentials is one 401 unauthorized message, so it tells nothing
 * about whether the email exists.
 */
import type { UserRow } from '../db/queries/users.js';
import { ApiError } from '../errors.js';
import type { UsersDeps } from './usersDeps.js';
import { lockedUntil } from '../db/queries/throttleCounts.js';
import {
  reserveLoginAttempt,
  settleLoginAttempt,
  throttleKeys,
  type AttemptOutcome,
  type ThrottleKeys,
} from './loginThrottle.js';
import type { SignInGate } from './signInGate.js';
import { createSession, type ActiveSession, type ClientFacts } from './sessions.js';
import { verifySecondFactor } from './twoFactor.js';
import { findUserByEmail } from './userAccounts.js';

export interface Credentials {
  email: string;
  password: string;
  totpCode?: string;
  recoveryCode?: string;
}

export type SignInDeps = UsersDeps & { signInGate: SignInGate };

export type CheckedCredentials = { status: 'two_factor_required' } | { status: 'ok'; user: UserRow };

const wrongCredentials = () => new ApiError('unauthorized', 'The email or password is wrong.');

/**
 * Verifies an email, password and second factor in a slot of the sign-in gate and under one reserved attempt of the
 * login throttle (docs/decisions.md §21.6). `two_factor_required` when the password is right but no code was sent.
 */
export async function checkCredentials(
  runtime: SignInDeps,
  input: Credentials,
  client: ClientFacts,
): Promise<CheckedCredentials> {
  const keys = throttleKeys(runtime, input.email, client.ip);
  return runtime.signInGate.hold(keys.account, async () => {
    const { locksAccount } = await reserveLoginAttempt(runtime, keys);
    let outcome: AttemptOutcome = 'released';
    try {
      const checked = await checkReserved(runtime, input);
      outcome = checked.status === 'ok' ? 'succeeded' : 'released';
      return checked;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized') outcome = 'failed';
      throw err;
    } finally {
      await settleLoginAttempt(runtime, keys, outcome);
      // The failure that reached the limit keeps the lock it set: the one moment a lockout begins (§21.1).
      if (outcome === 'failed' && locksAccount) await recordLockout(runtime, input.email, client, keys);
    }
  });
}

/** A lockout of an existing account, in its merchants' audit logs; an email nobody has leaves no trace. */
async function recordLockout(runtime: SignInDeps, email: string, client: ClientFacts, keys: ThrottleKeys) {
  if (!runtime.securityEvents) return;
  const user = await findUserByEmail(runtime, email);
  if (!user) return;
  const until = await lockedUntil(runtime.db.knex, [keys.account], runtime.now());
  await runtime.securityEvents({
    userId: user.id,
    action: 'signInLocked',
    target: null,
    details: { lockedUntil: until === null ? null : Math.floor(until / 1000) },
    ip: client.ip,
  });
}

/** The checks themselves, once an attempt is reserved: 401 unauthorized for a wrong password or code. */
async function checkReserved(runtime: SignInDeps, input: Credentials): Promise<CheckedCredentials> {
  const user = await findUserByEmail(runtime, input.email);
  const cost = runtime.config.dashboard.passwordCostLog2;
  const passwordOk =
    user && user.disabled_at === null
      ? await runtime.signInGate.verifyPassword(input.password, user.password_hash)
      : await runtime.signInGate.verifyNothing(input.password, cost);
  if (!user || !passwordOk) throw wrongCredentials();
  if (user.totp_enabled_at !== null) {
    if (input.totpCode === undefined && input.recoveryCode === undefined) return { status: 'two_factor_required' };
    if (!(await verifySecondFactor(runtime, user, input))) {
      throw new ApiError('unauthorized', 'The two-factor code is wrong or was already used.');
    }
  }
  return { status: 'ok', user };
}

export type SignInResult =
  { status: 'two_factor_required' } | { status: 'signed_in'; token: string; active: ActiveSession };

export async function signIn(runtime: SignInDeps, input: Credentials, client: ClientFacts): Promise<SignInResult> {
  const checked = await checkCredentials(runtime, input, client);
  if (checked.status === 'two_factor_required') return checked;
  const { token, session } = await createSession(runtime, checked.user.id, client);
  if (checked.user.totp_enabled_at !== null && input.totpCode === undefined && input.recoveryCode !== undefined) {
    await runtime.securityEvents?.({
      userId: checked.user.id,
      action: 'signInWithRecoveryCode',
      target: null,
      details: null,
      ip: client.ip,
    });
  }
  return { status: 'signed_in', token, active: { session, user: checked.user } };
}
