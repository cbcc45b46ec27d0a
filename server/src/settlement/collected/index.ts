/**
 * Collected settlement (docs/decisions.md §22.2–§22.16): the buyer pays a deposit address of the payment's own,
 * derived from the operator's deposit seed (deposits.ts); detection credits transfers to it (detection.ts); the
 * success writes what the merchant is owed (ledgerSplit.ts), and the shared money movement beside this folder sweeps
 * it and pays the merchant out, keeping the fee back (sweeps.ts, payouts.ts, moves.ts).
 */
import { findMerchant } from '../../db/queries/accounts.js';
import type { SettlementMode } from '../mode.js';
import { collectedRecipients, listDepositOptions, paysOutOn } from './deposits.js';
import { writeLedgerSplit } from './ledgerSplit.js';

export const collectedMode: SettlementMode = {
  name: 'collected',

  // The payment's deposit address on each chain where the merchant is paid out, in an asset a deposit may hold.
  optionRecipients: collectedRecipients,

  // The amount less the fee, which the payout keeps back (§22.2).
  settlementAmount: (optionAmount, fee) =>
    fee === null
      ? optionAmount
      : { unit: optionAmount.unit, value: (BigInt(optionAmount.value) - BigInt(fee.total_amount.value)).toString() },

  // The merchant's settlement address on the chain may have been removed after the option was listed (§22.14).
  reachesMerchant: async (deps, payment, chain) =>
    paysOutOn(await findMerchant(deps.db.knex, payment.merchant_id), chain),

  paidByDeposit: true,

  depositOptions: listDepositOptions,

  onSucceeded: writeLedgerSplit,
};
