/**
 * TOTP two-factor authentication (RFC 6238 through the `otpauth` library: SHA-1, 6 digits, 30-second steps, one step
 * of drift either way) with 10 one-time recovery codes. The secret is sealed (context `users.totp_secret_sealed:<id>`,
 * the pending one `users.totp_pending_sealed:<id>`); a code is accepted once: the last accepted step is stored and
 * only a later step passes (RFC 6238 §5.2). Recovery codes are stored as SHA-256 of their normalised form.
 */
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import {
  claimTotpStep,
  deleteRecoveryCodes,
  replaceRecoveryCodes,
  updateUser,
  useRecoveryCode,
  userHasTeamRequiringTwoFactor,
  type UserRow,
} from '../db/queries/users.js';
import { ApiError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { verifyPassword } from './passwords.js';
import { emailOf } from './userAccounts.js';

const PERIOD = 30;
const DIGITS = 6;
const ISSUER = 'Paygate';
const RECOVERY_CODES = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

const secretContext = (user: UserRow) => `users.totp_secret_sealed:${user.id}`;
const pendingContext = (user: UserRow) => `users.totp_pending_sealed:${user.id}`;

function totpOf(secretBase32: string, label = ''): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
  });
}

/** The time step `code` belongs to (within one step of now), or null when it is no current code. */
function stepOf(runtime: Runtime, secretBase32: string, code: string): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const now = runtime.now();
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

/** Checks a TOTP code of the active secret and spends its step; false for a wrong, stale or already used code. */
async function spendTotp(runtime: Runtime, user: UserRow, code: string): Promise<boolean> {
  if (!user.totp_secret_sealed) return false;
  const secret = runtime.secretBox.open(user.totp_secret_sealed, secretContext(user));
  const step = stepOf(runtime, secret, code);
  if (step === null) return false;
  return claimTotpStep(runtime.db.knex, user.id, step);
}

export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

const recoveryHash = (code: string) => createHash('sha256').update(normaliseRecoveryCode(code), 'utf8').digest('hex');

async function spendRecoveryCode(runtime: Runtime, user: UserRow, code: string): Promise<boolean> {
  const normalised = normaliseRecoveryCode(code);
  if (normalised.length !== 10) return false;
  return useRecoveryCode(runtime.db.knex, user.id, recoveryHash(normalised), runtime.now());
}

/** A user's second factor at sign-in: a TOTP code or a recovery code, each accepted once. */
export async function verifySecondFactor(
  runtime: Runtime,
  user: UserRow,
  input: { totpCode?: string; recoveryCode?: string },
): Promise<boolean> {
  if (input.totpCode !== undefined) return spendTotp(runtime, user, input.totpCode);
  if (input.recoveryCode !== undefined) return spendRecoveryCode(runtime, user, input.recoveryCode);
  return false;
}

function newRecoveryCodes(): string[] {
  const pick = () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]!;
  return Array.from({ length: RECOVERY_CODES }, () => {
    const chars = Array.from({ length: 10 }, pick).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

async function issueRecoveryCodes(runtime: Runtime, user: UserRow): Promise<string[]> {
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(runtime.db.knex, user.id, codes.map(recoveryHash));
  return codes;
}

const wrongCode = () => new ApiError('params_validation', 'The code is wrong or was already used.');

/** A new pending secret (replacing any pending one); 409 when two-factor authentication is already active. */
export async function startEnrolment(runtime: Runtime, user: UserRow): Promise<{ secret: string; otpauthUri: string }> {
  if (user.totp_enabled_at !== null) {
    throw new ApiError('invalid_state', 'Two-factor authentication is already active; disable it first.');
  }
  const secret = new Secret({ size: 20 }).base32;
  await updateUser(runtime.db.knex, user.id, {
    totp_pending_sealed: runtime.secretBox.seal(secret, pendingContext(user)),
  });
  return { secret, otpauthUri: totpOf(secret, emailOf(runtime, user)).toString() };
}

/** Confirms the pending secret with a code: two-factor authentication is on; the recovery codes, shown once. */
export async function activate(runtime: Runtime, user: UserRow, code: string): Promise<string[]> {
  if (user.totp_enabled_at !== null) {
    throw new ApiError('invalid_state', 'Two-factor authentication is already active.');
  }
  if (!user.totp_pending_sealed) {
    throw new ApiError('invalid_state', 'There is no pending two-factor enrolment; start one first.');
  }
  const secret = runtime.secretBox.open(user.totp_pending_sealed, pendingContext(user));
  const step = stepOf(runtime, secret, code);
  if (step === null) throw wrongCode();
  await updateUser(runtime.db.knex, user.id, {
    totp_secret_sealed: runtime.secretBox.seal(secret, secretContext(user)),
    totp_pending_sealed: null,
    totp_enabled_at: runtime.now(),
    totp_last_step: step,
  });
  return issueRecoveryCodes(runtime, user);
}

/** Turns two-factor authentication off, given the password and a code (TOTP or recovery). */
export async function disable(runtime: Runtime, user: UserRow, password: string, code: string): Promise<void> {
  if (user.totp_enabled_at === null) throw new ApiError('invalid_state', 'Two-factor authentication is not active.');
  if (await userHasTeamRequiringTwoFactor(runtime.db.knex, user.id)) {
    throw new ApiError('invalid_state', 'A team you belong to requires two-factor authentication.');
  }
  if (!(await verifyPassword(password, user.password_hash))) {
    throw new ApiError('params_validation', 'The password is wrong.');
  }
  const ok = /^[0-9]{6}$/.test(code)
    ? await spendTotp(runtime, user, code)
    : await spendRecoveryCode(runtime, user, code);
  if (!ok) throw wrongCode();
  await updateUser(runtime.db.knex, user.id, {
    totp_secret_sealed: null,
    totp_pending_sealed: null,
    totp_enabled_at: null,
    totp_last_step: null,
  });
  await deleteRecoveryCodes(runtime.db.knex, user.id);
}

/** New recovery codes for a current TOTP code; the old ones stop working. */
export async function regenerateRecoveryCodes(runtime: Runtime, user: UserRow, code: string): Promise<string[]> {
  if (user.totp_enabled_at === null) throw new ApiError('invalid_state', 'Two-factor authentication is not active.');
  if (!(await spendTotp(runtime, user, code))) throw wrongCode();
  return issueRecoveryCodes(runtime, user);
}

/** The current code of a base32 secret at the runtime's time (the CLI and tests act as an authenticator app). */
export function currentCode(secretBase32: string, at: number): string {
  return totpOf(secretBase32).generate({ timestamp: at });
}
