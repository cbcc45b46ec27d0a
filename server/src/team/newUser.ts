/**
 * Creating a dashboard user with an email and a password, and checking a user's password: what accepting an
 * invitation needs. The formats are those of the auth helper's users/ modules (passwords.ts, userAccounts.ts,
 * serverKeys.ts), so a row written by either is read by both, and the integrator can keep one copy: passwords are
 * scrypt (node:crypto; N=2^17, r=8, p=1, 16-byte salt, 32-byte key, NFC), encoded
 * `scrypt$<log2 N>$<r>$<p>$<salt base64url>$<hash base64url>`, so the cost can rise later without breaking old
 * hashes; emails are normalised (trimmed, lower-cased), sealed (context `users.email_sealed:<id>`) and found by an
 * HMAC-SHA256 under a key derived from the first encryption key (HKDF-SHA256, info `paygate email hash`).
 */
import { createHmac, hkdfSync, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
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
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r, p, maxmem: 2 * 128 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, cost, R, P);
  return `scrypt$${cost}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const ENCODED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/**
 * Whether `password` matches the encoded hash (arguments in the order of users/passwords.ts); compared in constant
 * time. A malformed hash matches nothing.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = ENCODED.exec(encoded);
  if (!m) return false;
  const [cost, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (cost < 1 || cost > 22 || r < 1 || p < 1) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scryptAsync(password, Buffer.from(m[4]!, 'base64url'), cost, r, p);
  return timingSafeEqual(actual, expected);
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The lookup key of an email: HMAC-SHA256 (hex) of its normalised form under a key derived from the encryption key. */
export function emailHash(deps: Pick<UserDeps, 'config'>, email: string): string {
  const first = deps.config.encryptionKeys[0];
  if (!first) throw new Error('no encryption key configured');
  const key = Buffer.from(hkdfSync('sha256', first.key, Buffer.alloc(0), 'paygate email hash', 32));
  return createHmac('sha256', key).update(normaliseEmail(email), 'utf8').digest('hex');
}

export const emailContext = (userId: string) => `users.email_sealed:${userId}`;

/** 12 to 256 characters, counted as code points (an emoji is one). */
export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new ApiError(
      'params_validation',
      `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`,
      { param: 'password' },
    );
  }
}

export type NewUserRow = Pick<UserRow, 'id' | 'email_hash' | 'email_sealed' | 'password_hash' | 'created_at'>;

/** The row of a new user, password hashed (the slow part, done before any transaction opens). */
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
    email_sealed: deps.secretBox.seal(normaliseEmail(input.email), emailContext(id)),
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
