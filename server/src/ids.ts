import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn 4 KiB at a time: one draw per id made a system call per created payment and event. Each byte is
 * used once, then the pool is refilled.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

function randomByte(): number {
  if (offset === POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]!;
}

/** Uniform base62 characters from the CSPRNG (rejection sampling: 62 does not divide 256). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
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
