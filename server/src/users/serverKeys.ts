/**
 * Keys derived from the first encryption key (HKDF-SHA256, one label per use), so the dashboard needs no secret of
 * its own: the email lookup hash and the CSRF tokens. Rotating the first encryption key changes both: sessions then
 * need a new CSRF token (reload), and stored email hashes are the old key's until recomputed (users' emails are
 * sealed, so a re-hash can read them); lookups try the hash under every configured key meanwhile.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { UsersDeps } from './usersDeps.js';

const cache = new WeakMap<UsersDeps, Map<string, Buffer>>();

function derived(runtime: UsersDeps, label: string, index = 0): Buffer {
  let keys = cache.get(runtime);
  if (!keys) {
    keys = new Map();
    cache.set(runtime, keys);
  }
  const name = `${label}#${index}`;
  let key = keys.get(name);
  if (!key) {
    const root = runtime.config.encryptionKeys[index]!.key;
    key = Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `paygate ${label}`, 32));
    keys.set(name, key);
  }
  return key;
}

/** HMAC-SHA256 under the key derived for `label`. */
export function keyedHash(runtime: UsersDeps, label: 'email hash' | 'csrf' | 'login throttle', value: string): Buffer {
  return createHmac('sha256', derived(runtime, label)).update(value, 'utf8').digest();
}

/**
 * The same hash under every configured encryption key, the first first: a lookup by these finds a row stored before
 * a new key was put first, so a rotation never locks anyone out while old rows still carry the old key's hash.
 */
export function keyedHashesUnderEveryKey(runtime: UsersDeps, label: 'email hash', value: string): Buffer[] {
  return runtime.config.encryptionKeys.map((_, index) =>
    createHmac('sha256', derived(runtime, label, index))
      .update(value, 'utf8')
      .digest(),
  );
}
