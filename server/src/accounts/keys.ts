import { hash } from 'node:crypto';
import { randomBase62 } from '../ids.js';

export type KeyKind = 'merchant' | 'wallet' | 'app';
export type Mode = 'test' | 'live';

/** Key formats of docs/decisions.md §4: the mode is visible in the key, so a leaked key says what it unlocks. */
const formats: Record<KeyKind, { prefix: string; length: number }> = {
  merchant: { prefix: 'sk', length: 32 },
  wallet: { prefix: 'wk', length: 32 },
  app: { prefix: 'app', length: 24 },
};

const KEY_PATTERN = /^(sk|wk|app)_(test|live)_([0-9A-Za-z]+)$/;

/** How much of a key is shown in lists: enough to tell keys apart, far too little to use. */
export const DISPLAY_PREFIX_LENGTH = 12;

export interface MintedKey {
  secret: string;
  hash: string;
  prefix: string;
}

export function mintKey(kind: KeyKind, mode: Mode): MintedKey {
  const { prefix, length } = formats[kind];
  const secret = `${prefix}_${mode}_${randomBase62(length)}`;
  return { secret, hash: hashKey(secret), prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * SHA-256, not a password hash: keys carry ≥ 143 random bits, so brute force is hopeless anyway, and a slow hash
 * would cap request throughput. Lookups go by hash through an index, so no secret is compared byte by byte.
 */
export function hashKey(secret: string): string {
  // The one-shot form: every authenticated request hashes its key, and a Hash object per call costs more.
  return hash('sha256', secret, 'hex');
}

/** Reads kind and mode from a key's format; null when the string cannot be one of our keys. */
export function parseKey(secret: string): { kind: KeyKind; mode: Mode } | null {
  const m = KEY_PATTERN.exec(secret);
  if (!m) return null;
  const kind = (Object.keys(formats) as KeyKind[]).find((k) => formats[k].prefix === m[1])!;
  if (m[3]!.length !== formats[kind].length) return null;
  return { kind, mode: m[2] as Mode };
}
