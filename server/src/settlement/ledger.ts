/**
 * The settlement ledger: one row per movement of money (db/queries/ledgerEntries.ts), written in the transaction of
 * the state change it records, once (by its entry key). Every balance is a sum over it, exact in minor units.
 *
 * What each kind means, and where the funds are after it (the entry's `address`):
 *   received     funds arrived: at a deposit address (collected) or the merchant's own address (direct)
 *   fee          the operator's fee on a payment (an accounting split of `received`, no movement)
 *   payable      what the merchant is owed for a payment: settlement amount − fee (collected; a split, no movement)
 *   swept        deposit → collection account (`address` is the deposit swept from; the sweep row names the target)
 *   paid_out     collection → the merchant's payout address
 *   fee_paid     collection → the operator's treasury
 *   refunded     collection → the buyer (reserved when the refund is asked for, before it is sent)
 *   refund_released  a `refunded` reservation given back, because that refund will never be sent (its claim link
 *                expired or was cancelled): no movement; written once (key `refund_released:<refundId>`) in the
 *                transaction that ends the refund
 *   refund_network_fee  what an on-chain refund's transaction costs, charged to the merchant (§22.13): no movement;
 *                the money stays in the collection account as the operator's (payouts pay the merchant that much
 *                less); written with the refund's `refunded` reservation (key `refund_network_fee:<refundId>`)
 *   refund_fee_released  a `refund_network_fee` given back with its refund's `refund_released` (never sent)
 *   fee_invoiced direct mode's fee, invoiced off-chain by the operator (closes the fee balance)
 */
import type { Knex } from 'knex';
import { sumLedger, type LedgerFilter, type LedgerKind, type LedgerSum } from '../db/queries/ledgerEntries.js';

export {
  insertLedgerEntries,
  listLedgerEntries,
  type LedgerEntry,
  type LedgerKind,
} from '../db/queries/ledgerEntries.js';

export interface Balance {
  merchantId: string;
  live: boolean;
  chain: string;
  asset: string;
  amount: bigint;
}

/** Σ plus − Σ minus over the sums, grouped by merchant, mode flag, chain and asset (addresses folded together). */
function net(sums: LedgerSum[], plus: LedgerKind[], minus: LedgerKind[]): Balance[] {
  const out = new Map<string, Balance>();
  for (const s of sums) {
    const sign = plus.includes(s.kind) ? 1n : minus.includes(s.kind) ? -1n : 0n;
    if (sign === 0n) continue;
    const key = [s.merchantId, s.live, s.chain, s.asset].join('\u0000');
    const found = out.get(key);
    if (found) found.amount += sign * s.amount;
    else
      out.set(key, { merchantId: s.merchantId, live: s.live, chain: s.chain, asset: s.asset, amount: sign * s.amount });
  }
  return [...out.values()];
}

/** Collected mode: what the operator owes each merchant and has not paid out or refunded. */
export async function unpaidBalances(db: Knex | Knex.Transaction, filter: LedgerFilter = {}): Promise<Balance[]> {
  const sums = await sumLedger(db, {
    ...filter,
    mode: 'collected',
    kinds: ['payable', 'refund_released', 'refund_fee_released', 'paid_out', 'refunded', 'refund_network_fee'],
  });
  return net(
    sums,
    ['payable', 'refund_released', 'refund_fee_released'],
    ['paid_out', 'refunded', 'refund_network_fee'],
  );
}

/** Direct mode: the fees a merchant owes the operator and has not been invoiced for. */
export async function feeBalances(db: Knex | Knex.Transaction, filter: LedgerFilter = {}): Promise<Balance[]> {
  const sums = await sumLedger(db, { ...filter, mode: 'direct', kinds: ['fee', 'fee_invoiced'] });
  return net(sums, ['fee'], ['fee_invoiced']);
}
