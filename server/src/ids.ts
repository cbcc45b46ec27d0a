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
  user: () => `usr_${randomBase62(16)}`,
  session: () => `ses_${randomBase62(16)}`,
  invitation: () => `inv_${randomBase62(16)}`,
  audit: () => `aud_${randomBase62(24)}`,
  depositTransfer: () => `dtr_${randomBase62(20)}`,
  sweep: () => `swp_${randomBase62(20)}`,
  payout: () => `po_${randomBase62(20)}`,
  refund: () => `rfd_${randomBase62(20)}`,
};

/** The form of every payment id the server issues: the contract's `PaymentId`. */
const PAYMENT_ID = /^pay_[0-9A-Za-z]{24}$/;

/**
 * Whether `id` has the form of an issued payment id. Callers' ids are opaque (the contract's `PaymentIdParam`,
 * docs/decisions.md §4): an id of another form is not an error, it simply names no payment, so lookups answer
 * "none" for it without asking the database (which also keeps strings a database cannot hold, such as a NUL on
 * PostgreSQL, out of every statement and out of the reads that are combined with other requests').
 */
export function isPaymentId(id: string): boolean {
  return PAYMENT_ID.test(id);
}

/** The longest payment id a caller may send (the contract's `PaymentIdParam`); longer is 400 params_validation. */
export const MAX_PAYMENT_ID_PARAM_LENGTH = 128;
