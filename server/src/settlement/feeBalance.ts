/**
 * The fee balance of direct settlement (docs/decisions.md §22.1): a direct payment's fee is a `fee` ledger row written
 * when the payment settles; the operator invoices it off-chain, which writes `fee_invoiced` rows. Per merchant, mode
 * flag, chain and asset: accrued = Σ fee, invoiced = Σ fee_invoiced, outstanding = accrued − invoiced, all exact
 * integers of the asset's minor units.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { sumLedger } from '../db/queries/ledgerEntries.js';
import { insertLedgerEntries, listLedgerEntries, type LedgerEntry } from './ledger.js';

export interface FeeBalance {
  merchantId: string;
  live: boolean;
  chain: string;
  /** CAIP-19. */
  asset: string;
  accrued: bigint;
  invoiced: bigint;
  outstanding: bigint;
}

export interface FeeFilter {
  merchantId?: string;
  live?: boolean;
  asset?: string;
}

/** Sorted by merchant, mode (test first), chain and asset, so listings and invoices come out in a stable order. */
export async function listFeeBalances(db: Knex | Knex.Transaction, filter: FeeFilter = {}): Promise<FeeBalance[]> {
  const sums = await sumLedger(db, { ...filter, mode: 'direct', kinds: ['fee', 'fee_invoiced'] });
  const out = new Map<string, FeeBalance>();
  for (const s of sums) {
    const key = [s.merchantId, s.live ? 1 : 0, s.chain, s.asset].join('\u0000');
    const balance = out.get(key) ?? {
      merchantId: s.merchantId,
      live: s.live,
      chain: s.chain,
      asset: s.asset,
      accrued: 0n,
      invoiced: 0n,
      outstanding: 0n,
    };
    out.set(key, balance);
    if (s.kind === 'fee') balance.accrued += s.amount;
    else balance.invoiced += s.amount;
    balance.outstanding = balance.accrued - balance.invoiced;
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, b]) => b);
}

/** The contract's `FeeBalances` of one merchant and mode. */
export async function feeBalancesOf(
  db: Knex | Knex.Transaction,
  scope: { merchantId: string; live: boolean },
): Promise<{
  live: boolean;
  balances: { chain: string; asset: string; accrued: string; invoiced: string; outstanding: string }[];
}> {
  const balances = await listFeeBalances(db, scope);
  return {
    live: scope.live,
    balances: balances.map((b) => ({
      chain: b.chain,
      asset: `caip19/${b.asset}`,
      accrued: b.accrued.toString(),
      invoiced: b.invoiced.toString(),
      outstanding: b.outstanding.toString(),
    })),
  };
}

export interface InvoiceLine {
  live: boolean;
  chain: string;
  asset: string;
  amount: bigint;
}

/** What an invoice id may be: it is part of ledger entry keys and printed by the CLI. */
export const INVOICE_ID = /^[A-Za-z0-9_.-]{1,40}$/;

/** One key per merchant, invoice, mode and asset (the asset digested, so the key fits the column whatever its length). */
function invoiceKey(merchantId: string, invoiceId: string, live: boolean, asset: string): string {
  const digest = createHash('sha256').update(asset).digest('hex').slice(0, 32);
  return `fee_invoiced:${merchantId}:${invoiceId}:${live ? 'live' : 'test'}:${digest}`;
}

/**
 * Invoices what is outstanding of a merchant's fees in one mode, optionally of one asset: one `fee_invoiced` row per
 * chain and asset, in one transaction. The invoice id makes it happen once: when any row of this invoice exists, it
 * writes nothing and answers what the invoice holds (`repeated`).
 */
export async function invoiceFees(
  db: Knex,
  input: { merchantId: string; invoiceId: string; live: boolean; asset?: string; now: number },
): Promise<{ lines: InvoiceLine[]; repeated: boolean }> {
  return db.transaction(async (trx) => {
    // Every asset that ever accrued a fee of this merchant and mode: the keys an earlier run of this invoice used.
    const balances = await listFeeBalances(trx, { merchantId: input.merchantId, live: input.live });
    const keys = balances.map((b) => invoiceKey(input.merchantId, input.invoiceId, b.live, b.asset));
    const earlier = await listLedgerEntries(trx, { merchantId: input.merchantId, kinds: ['fee_invoiced'] });
    const mine = earlier.filter((e) => keys.includes(e.entryKey));
    if (mine.length > 0) {
      return {
        lines: mine.map((e) => ({ live: e.live, chain: e.chain, asset: e.asset, amount: e.amount })),
        repeated: true,
      };
    }
    const entries: LedgerEntry[] = balances
      .filter((b) => b.outstanding > 0n && (input.asset === undefined || b.asset === input.asset))
      .map((b) => ({
        entryKey: invoiceKey(input.merchantId, input.invoiceId, b.live, b.asset),
        kind: 'fee_invoiced',
        merchantId: b.merchantId,
        live: b.live,
        mode: 'direct',
        chain: b.chain,
        asset: b.asset,
        amount: b.outstanding,
        address: null,
        createdAt: input.now,
      }));
    await insertLedgerEntries(trx, entries);
    return {
      lines: entries.map((e) => ({ live: e.live, chain: e.chain, asset: e.asset, amount: e.amount })),
      repeated: false,
    };
  });
}
