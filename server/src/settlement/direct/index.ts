/**
 * Direct settlement (docs/decisions.md §11, §22.1): the buyer pays the merchant's own settlement address, Paygate
 * never holds the money, and the fee is reported beside the payment and invoiced (settlement/feeBalance.ts). A live
 * payment settles when its success transaction is final on chain (settleDirect.ts).
 */
import { ApiError } from '../../errors.js';
import type { SettlementMode } from '../mode.js';
import { scheduleDirectSettlement } from './settleDirect.js';

export const directMode: SettlementMode = {
  name: 'direct',

  optionRecipients: async (_deps, _payment, merchant) => ({ settlement: merchant.settlement_addresses, assets: null }),

  // All of it: the fee is invoiced, not kept back.
  settlementAmount: (optionAmount) => optionAmount,

  // The option's recipient is the merchant's own address.
  reachesMerchant: async () => true,

  paidByDeposit: false,

  depositOptions: async (_deps, payment) => {
    throw new ApiError(
      'invalid_state',
      `Payment ${payment.id} is paid to the merchant directly and has no deposit address; list its options instead.`,
    );
  },

  onSucceeded: (deps, trx, payment) => scheduleDirectSettlement(deps, trx, payment),
};
