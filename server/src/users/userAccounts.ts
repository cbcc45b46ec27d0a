/**
 * Dashboard users: created by `paygate admin create-user`, the development bootstrap or an accepted invitation.
 * Emails are sealed (context `users.email_sealed:<id>`) and found by a keyed hash of the normalised address.
 */
import { findMerchant } from '../db/queries/accounts.js';
import {
  findMembership,
  findUserByEmailHashes,
  insertMembership,
  insertUser,
  type RoleName,
  type UserRow,
} from '../db/queries/users.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { UsersDeps } from './usersDeps.js';
import { checkNewPassword, hashPassword } from './passwords.js';
import { keyedHash, keyedHashesUnderEveryKey } from './serverKeys.js';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function emailHashOf(runtime: UsersDeps, email: string): string {
  return keyedHash(runtime, 'email hash', normaliseEmail(email)).toString('hex');
}

export function emailOf(runtime: UsersDeps, user: Pick<UserRow, 'id' | 'email_sealed'>): string {
  return runtime.secretBox.open(user.email_sealed, `users.email_sealed:${user.id}`);
}

/** The user with this email, whichever configured key its stored hash was made under (docs/decisions.md §29). */
export async function findUserByEmail(runtime: UsersDeps, email: string): Promise<UserRow | null> {
  const hashes = keyedHashesUnderEveryKey(runtime, 'email hash', normaliseEmail(email)).map((h) => h.toString('hex'));
  return findUserByEmailHashes(runtime.db.knex, hashes);
}

/** A new user (no membership yet); 409 invalid_state when the email is taken. */
export async function createUser(runtime: UsersDeps, input: { email: string; password: string }): Promise<UserRow> {
  const email = normaliseEmail(input.email);
  if (!EMAIL.test(email) || email.length > 254) throw new ApiError('params_validation', 'The email is not valid.');
  checkNewPassword(input.password);
  const emailHash = emailHashOf(runtime, email);
  if (await findUserByEmail(runtime, email)) {
    throw new ApiError('invalid_state', 'A user with this email already exists.');
  }
  const id = newId.user();
  const row: UserRow = {
    id,
    email_hash: emailHash,
    email_sealed: runtime.secretBox.seal(email, `users.email_sealed:${id}`),
    password_hash: await hashPassword(input.password, runtime.config.dashboard.passwordCostLog2),
    totp_secret_sealed: null,
    totp_pending_sealed: null,
    totp_enabled_at: null,
    totp_last_step: null,
    created_at: runtime.now(),
    disabled_at: null,
  };
  await insertUser(runtime.db.knex, row);
  return row;
}

/** Makes a user a member of a merchant with a role; 404 merchant_not_found, 409 invalid_state if already one. */
export async function addMembership(
  runtime: UsersDeps,
  userId: string,
  merchantId: string,
  role: RoleName,
): Promise<void> {
  if (!(await findMerchant(runtime.db.knex, merchantId))) {
    throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
  }
  if (await findMembership(runtime.db.knex, userId, merchantId)) {
    throw new ApiError('invalid_state', 'This user is already a member of the merchant.');
  }
  await insertMembership(runtime.db.knex, {
    user_id: userId,
    merchant_id: merchantId,
    role,
    created_at: runtime.now(),
  });
}
