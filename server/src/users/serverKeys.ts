/**
 * Keys derived from the first encryption key (HKDF-SHA256, one label per use), so the dashboard needs no secret of
 * its own: the email lookup hash and the CSRF tokens. Rotating the first encryption key changes both: sessions then
 * need a new CSRF token (reload), and the email hashes must be recomputed (docs: users' emails are sealed, so a
 * re-hash job can read them).
 */
import { createHmac, hkdfSync } from 'node:crypto';

export type KeyLabel = 'email hash' | 'csrf' | 'login throttle';

const LABELS: readonly KeyLabel[] = ['email hash', 'csrf', 'login throttle'];

/** The derived keys, made once (runtime.ts, and the CLI's users deps): a derivation on every request would cost. */
export class ServerKeys {
  private readonly keys: Record<KeyLabel, Buffer>;

  constructor(encryptionKeys: readonly { key: Buffer }[]) {
    const root = encryptionKeys[0]!.key;
    const derive = (label: KeyLabel) => Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `paygate ${label}`, 32));
    this.keys = Object.fromEntries(LABELS.map((label) => [label, derive(label)])) as Record<KeyLabel, Buffer>;
  }

  /** HMAC-SHA256 under the key derived for `label`. */
  hash(label: KeyLabel, value: string): Buffer {
    return createHmac('sha256', this.keys[label]).update(value, 'utf8').digest();
  }
}

/** HMAC-SHA256 under the key derived for `label`. */
export function keyedHash(deps: { serverKeys: ServerKeys }, label: KeyLabel, value: string): Buffer {
  return deps.serverKeys.hash(label, value);
}
