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

const TIME_CHARS = 8;

/**
 * The creation time (milliseconds) as 8 base62 characters, which sort as the times do (BASE62 is in ASCII order;
 * 62^8 ms reach past the year 8000).
 */
export function timeBase62(ms: number): string {
  let out = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    out = BASE62[ms % 62]! + out;
    ms = Math.floor(ms / 62);
  }
  return out;
}

/**
 * A time-ordered id (docs/decisions.md §4): the creation time, then 16 random characters (≈95 bits, so it still
 * cannot be guessed). Ids of rows inserted on every create go in at the end of their indexes instead of on a random
 * page of each: with fully random ids a group commit dirtied a page per row per index, and SQLite's commits (and
 * PostgreSQL's write-ahead log) wrote them all (BENCHMARKS.md, "Issue 18").
 */
export function timeOrderedId(prefix: string): string {
  return `${prefix}${timeBase62(Date.now())}${randomBase62(24 - TIME_CHARS)}`;
}

/** Id formats of docs/decisions.md §4. */
export const newId = {
  payment: () => timeOrderedId('pay_'),
  event: () => timeOrderedId('evt_'),
  partner: () => `ptn_${randomBase62(16)}`,
  merchant: () => `mer_${randomBase62(16)}`,
  key: () => `key_${randomBase62(16)}`,
  pos: () => `pos_${randomBase62(16)}`,
  user: () => `usr_${randomBase62(16)}`,
  session: () => `ses_${randomBase62(16)}`,
  invitation: () => `inv_${randomBase62(16)}`,
  audit: () => `aud_${randomBase62(24)}`,
  depositTransfer: () => `dtr_${randomBase62(20)}`,
  sweep: () => `swp_${randomBase62(20)}`,
  payout: () => `po_${randomBase62(20)}`,
  refund: () => `rfd_${randomBase62(20)}`,
  // `in_`, as Stripe's: `inv_` already names invitations (docs/decisions.md §30.9).
  invoice: () => `in_${randomBase62(24)}`,
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
