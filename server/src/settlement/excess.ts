/**
 * Excess (docs/decisions.md §22.12): money that reached a payment's deposit address beyond what the payment took,
 * which is the buyer's, not the merchant's: an overpayment's excess, a transfer after the payment expired or was
 * cancelled. Each is written to the ledger as `excess` (an accounting split of its `received`, no movement; the
 * deposit address it arrived at, its transaction), in the transaction that records its discrepancy, once (the key is
 * the transfer's). The sweep carries it to the collection account with the rest of the deposit (`swept` covers the
 * whole transfer), so an excess is at its deposit address until the sweep of its transfer is final, then at the
 * collection account, until it is refunded from there (`excess_refunded`, given back by `excess_released` when that
 * refund will never be sent). It is never part of the merchant's unpaid balance, and a refund of it never touches
 * that balance (refunds.ts, `source: 'excess'`).
 */
import type { Knex } from 'knex';
import type { DiscrepancyKind, DiscrepancyRow } from '../db/queries/discrepancies.js';
import { listLedgerEntries, type LedgerEntry } from '../db/queries/ledgerEntries.js';

/**
 * The discrepancies whose transfer holds received funds at a deposit address, and how much of the transfer is held
 * (what the payment did not take). Adding a kind here makes its funds an excess: written to the ledger, refundable to
 * the buyer. The kind's transfer must have its `received` entry (detection writes one for every counted transfer).
 */
export const HELD_BY_DISCREPANCY: Partial<Record<DiscrepancyKind, (d: DiscrepancyRow) => bigint>> = {
  // `expectedValue` is what the payment took of the transfer (0 for a transfer after it was paid).
  overpayment: (d) => BigInt(d.receivedValue) - BigInt(d.expectedValue),
  // The payment ended unpaid: nothing of the transfer was taken (`expectedValue` is the amount it asked).
  late_payment: (d) => BigInt(d.receivedValue),
  // A deposit on a chain the merchant cannot be paid on (§22.14): none of it pays the payment.
  unroutable_deposit: (d) => BigInt(d.receivedValue),
  // Not `unwatched_deposit` (§22.15): reconciliation saw a balance, not a transfer, and nothing sweeps it, so it is
  // never at the collection account a refund is sent from; the operator returns it with the deposit key.
  // Not `screened_sender` (§25.8): money from a screened account is held for the operator, never refunded to it.
};

/** The `excess` entry of a discrepancy that holds funds, or null (a kind that holds none, or nothing held). */
export function excessEntry(
  d: DiscrepancyRow,
  at: { merchantId: string; address: string; position: number },
): LedgerEntry | null {
  const held = HELD_BY_DISCREPANCY[d.kind]?.(d) ?? 0n;
  if (held <= 0n || d.txId === null || !d.assetUnit.startsWith('caip19/')) return null;
  return {
    entryKey: `excess:${d.chain}:${d.txId}:${at.position}`,
    kind: 'excess',
    merchantId: at.merchantId,
    live: d.live,
    mode: 'collected',
    chain: d.chain,
    asset: d.assetUnit.slice('caip19/'.length),
    amount: held,
    address: at.address,
    paymentId: d.paymentId,
    txId: d.txId,
    createdAt: d.createdAt,
  };
}

export interface ExcessLeft {
  chain: string;
  asset: string;
  amount: bigint;
}

/**
 * What is left of a payment's excess to refund, per chain and asset: Σ excess − Σ excess_refunded + Σ
 * excess_released (a refund that will never be sent gives its amount back).
 */
export async function excessLeft(db: Knex | Knex.Transaction, paymentId: string): Promise<ExcessLeft[]> {
  const entries = await listLedgerEntries(db, {
    paymentId,
    kinds: ['excess', 'excess_refunded', 'excess_released'],
  });
  const out = new Map<string, ExcessLeft>();
  for (const e of entries) {
    const key = `${e.chain} ${e.asset}`;
    const found = out.get(key) ?? { chain: e.chain, asset: e.asset, amount: 0n };
    found.amount += e.kind === 'excess_refunded' ? -e.amount : e.amount;
    out.set(key, found);
  }
  return [...out.values()];
}
