/**
 * Dashboard passwords: scrypt (node:crypto), memory-hard, encoded with its parameters so a change of cost leaves
 * existing hashes verifiable: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>` (N=2^17, r=8, p=1 by default,
 * 16-byte salt, 32-byte key). Verification compares in constant time.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ApiError } from '../errors.js';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const R = 8;
const P = 1;

function scrypt(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  // scrypt needs 128 * N * r bytes; Node's default limit (32 MiB) is below the production cost.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Refuses a new password outside 12–256 characters (400 params_validation). */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw new ApiError(
      'params_validation',
      `The password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long.`,
    );
  }
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, log2N, R, P);
  return `scrypt$${log2N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const ENCODED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Whether `password` matches the encoded hash; false (never a throw) for a malformed hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const m = ENCODED.exec(encoded);
  if (!m) return false;
  const [log2N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (log2N < 1 || log2N > 22 || r < 1 || p < 1) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scrypt(password, Buffer.from(m[4]!, 'base64url'), log2N, r, p);
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password per cost, made once: what an unknown email is checked against. One set per runtime
 * (its sign-in gate holds it, users/signInGate.ts).
 */
export class DummyHashes {
  private readonly byCost = new Map<number, Promise<string>>();

  of(log2N: number): Promise<string> {
    let dummy = this.byCost.get(log2N);
    if (!dummy) {
      dummy = hashPassword(randomBytes(16).toString('hex'), log2N);
      this.byCost.set(log2N, dummy);
    }
    return dummy;
  }
}

/**
 * Spends the time of one verification at this cost and answers false: an unknown email costs what a wrong password
 * does, so timing does not tell whether an account exists.
 */
export async function verifyNothing(
  password: string,
  log2N: number,
  verify: (password: string, encoded: string) => Promise<boolean> = verifyPassword,
  dummies: DummyHashes = new DummyHashes(),
): Promise<false> {
  await verify(password, await dummies.of(log2N));
  return false;
}
