/**
 * Creating a dashboard user with an email and a password, and checking a user's password: what accepting an
 * invitation needs. Passwords are hashed with scrypt (node:crypto; N=2^17, r=8, p=1, 16-byte salt, 32-byte key),
 * encoded `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can rise later without breaking old
 * hashes. Emails are sealed (`users.email:<id>`) and found by a keyed hash of their normalised form.
 */
import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { randomBase62 } from '../ids.js';
import { insertUser, type UserRow } from '../db/queries/teamRows.js';
import { ApiError } from '../errors.js';
import type { Runtime } from '../runtime.js';

export type UserDeps = Pick<Runtime, 'db' | 'now' | 'secretBox'> & {
  config: { encryptionKeys: { id: string; key: Buffer }[] };
};

/** log2 of scrypt's N in production; tests pass a cheap cost (e.g. 10). */
export const DEFAULT_PASSWORD_COST = 17;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

function scryptAsync(password: string, salt: Buffer, cost: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** cost;
  return new Promise((resolve, reject) =>
    // maxmem above the 128·N·r bytes scrypt needs (Node's default, 32 MiB, refuses N=2^17 with r=8).
    scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 2 * 128 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, cost, R, P);
  return `scrypt$${cost}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Whether `password` matches the encoded hash; compared in constant time. A malformed hash matches nothing. */
export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [cost, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![cost, r, p].every((n) => Number.isInteger(n) && n > 0) || cost > 24) return false;
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scryptAsync(password, Buffer.from(parts[4]!, 'base64'), cost, r, p);
  return timingSafeEqual(actual, expected);
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The lookup key of an email: HMAC-SHA256 (hex) of its normalised form under a key derived from the encryption key. */
export function emailHash(deps: Pick<UserDeps, 'config'>, email: string): string {
  const first = deps.config.encryptionKeys[0];
  if (!first) throw new Error('no encryption key configured');
  const key = createHash('sha256')
    .update(Buffer.concat([Buffer.from('paygate email index', 'utf8'), first.key]))
    .digest();
  return createHmac('sha256', key).update(normaliseEmail(email), 'utf8').digest('hex');
}

export const emailContext = (userId: string) => `users.email:${userId}`;

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new ApiError(
      'params_validation',
      `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`,
    );
  }
}

export type NewUserRow = Pick<UserRow, 'id' | 'email_hash' | 'email_sealed' | 'password_hash' | 'created_at'>;

/**
 * The row of a new user, password hashed (the slow part, done before any transaction opens). The email is stored
 * as given but trimmed; it is compared through its hash, case-insensitively.
 */
export async function newUserRow(
  deps: UserDeps,
  input: { email: string; password: string },
  cost = DEFAULT_PASSWORD_COST,
): Promise<NewUserRow> {
  checkPassword(input.password);
  const id = `usr_${randomBase62(16)}`;
  return {
    id,
    email_hash: emailHash(deps, input.email),
    email_sealed: deps.secretBox.seal(input.email.trim(), emailContext(id)),
    password_hash: await hashPassword(input.password, cost),
    created_at: deps.now(),
  };
}

/** Creates a user; in `options.db` (a transaction) when given. A taken email is a unique violation of `email_hash`. */
export async function createUserWithPassword(
  deps: UserDeps,
  input: { email: string; password: string },
  options: { cost?: number; db?: Knex.Transaction } = {},
): Promise<{ id: string }> {
  const row = await newUserRow(deps, input, options.cost);
  await insertUser(options.db ?? deps.db.knex, row);
  return { id: row.id };
}
