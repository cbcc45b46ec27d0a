/**
 * Keys derived from the first encryption key (HKDF-SHA256, one label per use), so the dashboard needs no secret of
 * its own: the email lookup hash and the CSRF tokens. Rotating the first encryption key changes both: sessions then
 * need a new CSRF token (reload), and the email hashes must be recomputed (docs: users' emails are sealed, so a
 * re-hash job can read them).
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { Runtime } from '../runtime.js';

const cache = new WeakMap<Runtime, Map<string, Buffer>>();

function derived(runtime: Runtime, label: string): Buffer {
  let keys = cache.get(runtime);
  if (!keys) {
    keys = new Map();
    cache.set(runtime, keys);
  }
  let key = keys.get(label);
  if (!key) {
    const root = runtime.config.encryptionKeys[0]!.key;
    key = Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `paygate ${label}`, 32));
    keys.set(label, key);
  }
  return key;
}

/** HMAC-SHA256 under the key derived for `label`. */
export function keyedHash(runtime: Runtime, label: 'email hash' | 'csrf' | 'login throttle', value: string): Buffer {
  return createHmac('sha256', derived(runtime, label)).update(value, 'utf8').digest();
}
