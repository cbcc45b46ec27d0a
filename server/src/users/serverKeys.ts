/**
 * Keys derived from the first encryption key (HKDF-SHA256, one label per use), so the dashboard needs no secret of
 * its own: the email lookup hash and the CSRF tokens. Rotating the first encryption key changes both: sessions then
 * need a new CSRF token (reload), and stored email hashes are the old key's until recomputed (users' emails are
 * sealed, so a re-hash can read them); lookups try the hash under every configured key meanwhile.
 */
import { createHmac, hkdfSync } from 'node:crypto';

export type KeyLabel = 'email hash' | 'csrf' | 'login throttle' | 'link visitor';

const LABELS: readonly KeyLabel[] = ['email hash', 'csrf', 'login throttle', 'link visitor'];

/** The derived keys, made once (runtime.ts, and the CLI's users deps): a derivation on every request would cost. */
export class ServerKeys {
  /** One set per configured encryption key, the first first (the first is the one in use). */
  private readonly keys: Record<KeyLabel, Buffer>[];

  constructor(encryptionKeys: readonly { key: Buffer }[]) {
    this.keys = encryptionKeys.map(({ key: root }) => {
      const derive = (label: KeyLabel) =>
        Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `paygate ${label}`, 32));
      return Object.fromEntries(LABELS.map((label) => [label, derive(label)])) as Record<KeyLabel, Buffer>;
    });
  }

  /** HMAC-SHA256 under the key derived for `label` from the first encryption key. */
  hash(label: KeyLabel, value: string): Buffer {
    return createHmac('sha256', this.keys[0]![label]).update(value, 'utf8').digest();
  }

  /** The same hash under every configured encryption key, the first first. */
  hashUnderEveryKey(label: KeyLabel, value: string): Buffer[] {
    return this.keys.map((keys) => createHmac('sha256', keys[label]).update(value, 'utf8').digest());
  }
}

/** HMAC-SHA256 under the key derived for `label`. */
export function keyedHash(deps: { serverKeys: ServerKeys }, label: KeyLabel, value: string): Buffer {
  return deps.serverKeys.hash(label, value);
}

/**
 * The same hash under every configured encryption key, the first first: a lookup by these finds a row stored before
 * a new key was put first, so a rotation never locks anyone out while old rows still carry the old key's hash.
 */
export function keyedHashesUnderEveryKey(
  deps: { serverKeys: ServerKeys },
  label: 'email hash',
  value: string,
): Buffer[] {
  return deps.serverKeys.hashUnderEveryKey(label, value);
}
