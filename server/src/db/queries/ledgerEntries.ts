import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

/** The movements of settlement/ledger.ts (the stored form; db/ depends on no domain folder). */
export type LedgerKind =
  | 'received'
  | 'fee'
  | 'payable'
  | 'swept'
  | 'paid_out'
  | 'fee_paid'
  | 'refunded'
  | 'refund_released'
  | 'refund_network_fee'
  | 'refund_fee_released'
  | 'payout_reserved'
  | 'payout_released'
  | 'excess'
  | 'excess_refunded'
  | 'excess_released'
  | 'fee_invoiced';

export interface LedgerEntry {
  /** What makes the entry happen once: a repeat with the same key writes nothing. */
  entryKey: string;
  kind: LedgerKind;
  merchantId: string;
  live: boolean;
  mode: 'direct' | 'collected';
  chain: string;
  asset: string;
  /** Integer minor units of `asset`, > 0. */
  amount: bigint;
  address: string | null;
  paymentId?: string | null;
  sweepId?: string | null;
  payoutId?: string | null;
  refundId?: string | null;
  txId?: string | null;
  createdAt: number;
}

interface Raw {
  entry_key: string;
  kind: LedgerKind;
  merchant_id: string;
  live: boolean | number;
  mode: 'direct' | 'collected';
  chain_caip2: string;
  asset_caip19: string;
  amount: string;
  address: string | null;
  payment_id: string | null;
  sweep_id: string | null;
  payout_id: string | null;
  refund_id: string | null;
  tx_id: string | null;
  created_at: number | string;
}

/** The ledger_totals key of an entry, as one string: the order postings take the keys' row locks in. */
/** The columns `ledger_totals` is keyed by (migration 019), which are what a sum groups by. */
const TOTAL_KEY = ['merchant_id', 'live', 'mode', 'chain_caip2', 'asset_caip19', 'address', 'kind'];
const totalsKeyOf = (e: LedgerEntry) =>
  [e.merchantId, e.live, e.mode, e.chain, e.asset, e.address ?? '', e.kind].join('\u0000');

/**
 * PostgreSQL keeps a key's ledger_totals row locked from the statement that changes it (migration 019's trigger) until
 * commit. Two transactions posting the same keys in different orders could each hold a row the other waits for
 * (40P01, docs/decisions.md §24.15), so a posting first takes its keys' rows in one order, the keys' sort order,
 * creating a missing one at zero; the entries then go in the caller's order, which is the order the ledger export
 * lists them in. SQLite has one writer at a time and needs none of this.
 */
async function lockTotalsInKeyOrder(db: Knex | Knex.Transaction, entries: LedgerEntry[]): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const keys = new Map(entries.map((e) => [totalsKeyOf(e), e]));
  for (const key of [...keys.keys()].sort()) {
    const e = keys.get(key)!;
    await db.raw(
      `insert into ledger_totals (${TOTAL_KEY.join(', ')}, amount) values (?, ?, ?, ?, ?, ?, ?, 0)
       on conflict (${TOTAL_KEY.join(', ')}) do update set amount = ledger_totals.amount`,
      [e.merchantId, e.live, e.mode, e.chain, e.asset, e.address ?? '', e.kind],
    );
  }
}

/** Writes the entries that are new; answers how many were. Call it inside the transaction of the state it records. */
export async function insertLedgerEntries(db: Knex | Knex.Transaction, entries: LedgerEntry[]): Promise<number> {
  for (const e of entries)
    if (e.amount <= 0n) throw new Error(`ledger entry ${e.entryKey}: amount ${e.amount} is not positive`);
  await lockTotalsInKeyOrder(db, entries);
  let written = 0;
  for (const e of entries) {
    const rows = (await db('ledger_entries')
      .insert({
        entry_key: e.entryKey,
        kind: e.kind,
        merchant_id: e.merchantId,
        live: e.live,
        mode: e.mode,
        chain_caip2: e.chain,
        asset_caip19: e.asset,
        amount: e.amount.toString(),
        address: e.address,
        payment_id: e.paymentId ?? null,
        sweep_id: e.sweepId ?? null,
        payout_id: e.payoutId ?? null,
        refund_id: e.refundId ?? null,
        tx_id: e.txId ?? null,
        created_at: e.createdAt,
      })
      .onConflict('entry_key')
      .ignore()
      .returning('entry_key')) as unknown[];
    written += rows.length;
  }
  return written;
}

export interface LedgerFilter {
  merchantId?: string;
  live?: boolean;
  mode?: 'direct' | 'collected';
  chain?: string;
  asset?: string;
  address?: string;
  paymentId?: string;
  payoutId?: string;
  kinds?: LedgerKind[];
}

/** The filters `ledger_entries` and `ledger_totals` share: the columns a total is keyed by. */
function whereKey(q: Knex.QueryBuilder, f: LedgerFilter): Knex.QueryBuilder {
  if (f.merchantId !== undefined) q.where('merchant_id', f.merchantId);
  if (f.live !== undefined) q.where('live', f.live);
  if (f.mode !== undefined) q.where('mode', f.mode);
  if (f.chain !== undefined) q.where('chain_caip2', f.chain);
  if (f.asset !== undefined) q.where('asset_caip19', f.asset);
  if (f.address !== undefined) q.where('address', f.address);
  if (f.kinds !== undefined) q.whereIn('kind', f.kinds);
  return q;
}

function filtered(db: Knex | Knex.Transaction, f: LedgerFilter): Knex.QueryBuilder {
  const q = whereKey(db('ledger_entries'), f);
  if (f.paymentId !== undefined) q.where('payment_id', f.paymentId);
  if (f.payoutId !== undefined) q.where('payout_id', f.payoutId);
  return q;
}

export async function listLedgerEntries(db: Knex | Knex.Transaction, f: LedgerFilter): Promise<LedgerEntry[]> {
  const rows = (await filtered(db, f).orderBy('id')) as Raw[];
  return rows.map(fromRaw);
}

function fromRaw(r: Raw): LedgerEntry {
  return {
    entryKey: r.entry_key,
    kind: r.kind,
    merchantId: r.merchant_id,
    live: r.live === true || r.live === 1,
    mode: r.mode,
    chain: r.chain_caip2,
    asset: r.asset_caip19,
    amount: BigInt(r.amount),
    address: r.address,
    paymentId: r.payment_id,
    sweepId: r.sweep_id,
    payoutId: r.payout_id,
    refundId: r.refund_id,
    txId: r.tx_id,
    createdAt: Number(r.created_at),
  };
}

export interface LedgerSum {
  merchantId: string;
  live: boolean;
  mode: 'direct' | 'collected';
  chain: string;
  asset: string;
  address: string | null;
  kind: LedgerKind;
  amount: bigint;
}

function sumOf(r: Omit<Raw, 'amount'>, address: string | null, amount: bigint): LedgerSum {
  return {
    merchantId: r.merchant_id,
    live: r.live === true || r.live === 1,
    mode: r.mode,
    chain: r.chain_caip2,
    asset: r.asset_caip19,
    address,
    kind: r.kind,
    amount,
  };
}

/**
 * Sums by merchant, mode, chain, asset, address and kind over the entries themselves: the definition `sumLedger`'s
 * totals are tested against, and its read for one payment's or payout's entries. Amounts are text (18-decimal tokens
 * overflow SQLite's integers), so the sums are taken exactly here, with BigInt.
 */
export async function scanLedgerSums(db: Knex | Knex.Transaction, f: LedgerFilter): Promise<LedgerSum[]> {
  const rows = (await filtered(db, f).select(
    'merchant_id',
    'live',
    'mode',
    'chain_caip2',
    'asset_caip19',
    'address',
    'kind',
    'amount',
  )) as Raw[];
  const sums = new Map<string, LedgerSum>();
  for (const r of rows) {
    const key = [r.merchant_id, r.live, r.mode, r.chain_caip2, r.asset_caip19, r.address, r.kind].join('\u0000');
    const found = sums.get(key);
    if (found) found.amount += BigInt(r.amount);
    else sums.set(key, sumOf(r, r.address, BigInt(r.amount)));
  }
  return [...sums.values()];
}

/** SQLite keeps a total as nine integer limbs of nine decimal digits each, lowest first (migration 019). */
const LIMBS = Array.from({ length: 9 }, (_, i) => `d${i}`);

interface TotalRaw extends Omit<Raw, 'amount'> {
  amount?: string;
  [limb: `d${number}`]: number | string;
}

/**
 * Sums by merchant, mode, chain, asset, address and kind, read from the totals the ledger's triggers keep
 * (`ledger_totals`, migration 019, docs/decisions.md §24.10): one row per key, whatever the history. A read of one
 * payment's or payout's entries is a handful of rows, so it sums them (the totals have no such key).
 */
export async function sumLedger(db: Knex | Knex.Transaction, f: LedgerFilter): Promise<LedgerSum[]> {
  if (f.paymentId !== undefined || f.payoutId !== undefined) return scanLedgerSums(db, f);
  const q = whereKey(db('ledger_totals'), f);
  const postgres = dialectOf(db) === 'postgres';
  const rows = (await q.select(...TOTAL_KEY, ...(postgres ? ['amount'] : LIMBS)).orderBy(TOTAL_KEY)) as TotalRaw[];
  const sums: LedgerSum[] = [];
  for (const r of rows) {
    const amount = postgres
      ? BigInt(r.amount!)
      : LIMBS.reduceRight((acc, limb) => acc * 1_000_000_000n + BigInt(r[limb as `d${number}`]!), 0n);
    // A key whose entries were all removed keeps its row at zero; a scan would not have seen it.
    if (amount === 0n) continue;
    sums.push(sumOf(r, r.address === '' ? null : r.address, amount));
  }
  return sums;
}

/** A stored entry with its row id (the order entries were written in). */
export interface StoredLedgerEntry extends LedgerEntry {
  id: number;
}

/**
 * One page of a merchant's entries of one mode, oldest first (by row id, the order they were written), after `afterId`
 * and within `[createdGte, createdLt)` (milliseconds): a keyset page, so an export never holds more than one in memory.
 */
export async function ledgerPage(
  db: Knex | Knex.Transaction,
  q: { merchantId: string; live: boolean; afterId?: number; createdGte?: number; createdLt?: number; limit: number },
): Promise<StoredLedgerEntry[]> {
  const query = db('ledger_entries').where({ merchant_id: q.merchantId, live: q.live });
  if (q.afterId !== undefined) query.where('id', '>', q.afterId);
  if (q.createdGte !== undefined) query.where('created_at', '>=', q.createdGte);
  if (q.createdLt !== undefined) query.where('created_at', '<', q.createdLt);
  const rows = (await query.orderBy('id').limit(q.limit)) as (Raw & { id: number | string })[];
  return rows.map((r) => ({ ...fromRaw(r), id: Number(r.id) }));
}
