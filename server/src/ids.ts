import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 characters from the CSPRNG (rejection sampling: 62 does not divide 256). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Id formats of docs/decisions.md §4: payment and event ids carry ≈143 random bits, so they cannot be guessed. */
export const newId = {
  payment: () => `pay_${randomBase62(24)}`,
  event: () => `evt_${randomBase62(24)}`,
  partner: () => `ptn_${randomBase62(16)}`,
  merchant: () => `mer_${randomBase62(16)}`,
  key: () => `key_${randomBase62(16)}`,
};
