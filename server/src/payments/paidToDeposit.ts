/**
 * Whether a payment's money sits at one of the operator's deposit addresses (collected settlement, docs/decisions.md
 * §22.3 and §22.16): then the ledger owes it to the merchant, a payout pays it, and that payout's finality settles the
 * payment, in test mode as in live. A simulated success moved nothing on any chain, so nothing will ever pay it out.
 */
import type { Knex } from 'knex';
import { depositAddressOf } from '../db/queries/seenTransfers.js';
import type { PaymentRow } from '../db/queries/payments.js';

/** The success transaction `simulate` records: no chain has it (§7's sample data). */
export function simulatedTxId(paymentId: string): string {
  return `test:${paymentId}`;
}

/**
 * The deposit address that received the payment's money: it was paid on a chain where it has one (the option's
 * recipient there is that address, whatever the merchant's mode is by the time it succeeds), and not simulated.
 */
export async function paidToDeposit(
  db: Knex | Knex.Transaction,
  payment: Pick<PaymentRow, 'id' | 'stages'>,
): Promise<string | null> {
  const processing = payment.stages.processing;
  if (!processing || payment.stages.success?.tx_id === simulatedTxId(payment.id)) return null;
  return depositAddressOf(db, payment.id, processing.chain_caip2);
}
