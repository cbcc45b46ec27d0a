/**
 * The settlement ledger: one row per movement of money (db/queries/ledgerEntries.ts), written in the transaction of
 * the state change it records, once (by its entry key). Every balance is a sum over it, exact in minor units.
 *
 * What each kind means, and where the funds are after it (the entry's `address`):
 *   received     funds arrived: at a deposit address (collected) or the merchant's own address (direct)
 *   fee          the operator's fee on a payment (an accounting split of `received`, no movement)
 *   payable      what the merchant is owed for a payment: settlement amount − fee (collected; a split, no movement)
 *   swept        deposit → collection account (`address` is the deposit swept from; the sweep row names the target)
 *   paid_out     collection → the merchant's payout address (written when the payout is final)
 *   payout_reserved  a planned payout's share for the merchant (its net), out of their unpaid balance from the moment
 *                it is planned: no movement yet; written once (key `payout_reserved:<payoutId>`) in the planning
 *                transaction, under the merchant's balance lock (payouts.ts)
 *   payout_released  that reservation closed, exactly once (key `payout_released:<payoutId>`): posted, beside
 *                `paid_out`, when the payout is final; voided, alone, when its move fails as dead (moves.ts failMove)
 *   fee_paid     collection → the operator's treasury
 *   refunded     collection → the buyer (reserved when the refund is asked for, before it is sent)
 *   refund_released  a `refunded` reservation given back, because that refund will never be sent (its claim link
 *                expired or was cancelled, or its move failed as dead): no movement; written once (key `refund_released:<refundId>`) in the
 *                transaction that ends the refund
 *   refund_network_fee  what an on-chain refund's transaction costs, charged to the merchant (§22.13): no movement;
 *                the money stays in the collection account as the operator's (payouts pay the merchant that much
 *                less); written with the refund's `refunded` reservation (key `refund_network_fee:<refundId>`)
 *   refund_fee_released  a `refund_network_fee` given back with its refund's `refund_released` (never sent)
 *   excess       what a transfer to a deposit address brought beyond what its payment took (an overpayment, a payment
 *                after expiry or cancellation: excess.ts HELD_BY_DISCREPANCY): the buyer's, never the merchant's; an
 *                accounting split of `received` at that deposit address (no movement), swept with it to the collection
 *   excess_refunded  collection → the buyer, out of an excess (reserved when asked for, as `refunded`)
 *   excess_released  an `excess_refunded` reservation given back (the refund will never be sent), as `refund_released`
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

/** What adds to a merchant's unpaid balance in collected mode: owed, or a reservation given back. */
export const UNPAID_PLUS: LedgerKind[] = ['payable', 'refund_released', 'refund_fee_released', 'payout_released'];
/**
 * What takes from it: paid, or reserved for a payout or a refund, planned or sent (docs/decisions.md §22.12). A kind
 * that charges the merchant (a refund's network cost) belongs here.
 */
export const UNPAID_MINUS: LedgerKind[] = ['paid_out', 'refunded', 'refund_network_fee', 'payout_reserved'];

/**
 * Collected mode: what the operator owes each merchant and has not paid out, refunded, or reserved for a payout or a
 * refund in flight: nothing planned, sent or paid is in it. A refund draws on its payment's own money and is bounded
 * by this as well (refunds.ts); an excess is never in it (excess.ts).
 */
export async function unpaidBalances(db: Knex | Knex.Transaction, filter: LedgerFilter = {}): Promise<Balance[]> {
  const sums = await sumLedger(db, { ...filter, mode: 'collected', kinds: [...UNPAID_PLUS, ...UNPAID_MINUS] });
  return net(sums, UNPAID_PLUS, UNPAID_MINUS);
}

/** Direct mode: the fees a merchant owes the operator and has not been invoiced for. */
export async function feeBalances(db: Knex | Knex.Transaction, filter: LedgerFilter = {}): Promise<Balance[]> {
  const sums = await sumLedger(db, { ...filter, mode: 'direct', kinds: ['fee', 'fee_invoiced'] });
  return net(sums, ['fee'], ['fee_invoiced']);
}
