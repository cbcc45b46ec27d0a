/**
 * The ledger's split of a collected payment at success (docs/decisions.md §22.3): `fee` (the fee total) and `payable`
 * (what the merchant is owed: the amount paid less the fee), written in the transaction of the `payment.succeeded`
 * event (the collected mode's `onSucceeded`), so whichever path made it succeed (detection, or the wallet's confirm
 * to the deposit address) writes them, once (`fee:<paymentId>`, `payable:<paymentId>`).
 */
import type { Knex } from 'knex';
import type { PaymentRow } from '../../db/queries/payments.js';
import { paidToDeposit } from '../../payments/paidToDeposit.js';
import { insertLedgerEntries, type LedgerEntry } from '../ledger.js';

/**
 * The payment was created in collected settlement (settlement/modes.ts sends only those here) and paid on a chain
 * where it has a deposit address (the option's recipient there, §22.14), whatever the merchant's mode is by the time
 * it succeeds.
 */
export async function writeLedgerSplit(
  deps: { now: () => number },
  trx: Knex.Transaction,
  payment: PaymentRow,
): Promise<void> {
  const processing = payment.stages.processing;
  if (!processing || !processing.option_amount.unit.startsWith('caip19/')) return;
  // A simulated success (test mode) moved no money, so nothing is owed or paid out for it.
  const deposit = await paidToDeposit(trx, payment);
  if (!deposit) return;
  const asset = processing.option_amount.unit.slice('caip19/'.length);
  const gross = BigInt(processing.option_amount.value);
  const fee =
    processing.fee && processing.fee.total_amount.unit === processing.option_amount.unit
      ? BigInt(processing.fee.total_amount.value)
      : 0n;
  const entry = (kind: 'fee' | 'payable', amount: bigint): LedgerEntry => ({
    entryKey: `${kind}:${payment.id}`,
    kind,
    merchantId: payment.merchant_id,
    live: payment.live,
    mode: 'collected',
    chain: processing.chain_caip2,
    asset,
    amount,
    address: deposit,
    paymentId: payment.id,
    txId: payment.stages.success?.tx_id ?? null,
    createdAt: deps.now(),
  });
  await insertLedgerEntries(
    trx,
    [entry('fee', fee), entry('payable', gross - fee)].filter((e) => e.amount > 0n),
  );
}
