/**
 * Test mode's `simulate`: one real transition per call (same lifecycle, same events, same jobs as a paying buyer),
 * filled with the sample data documented in docs/decisions.md §7.
 */
import { simulatedPayment } from '../chains/adapters.js';
import type { MerchantRow } from '../db/queries/accounts.js';
import type { PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import { currencyOfUnit } from '../currencies.js';
import { computeFee, parseFeeConfig, type FeeBreakdown, type Money } from './fees.js';
import { recordStage, transitionPayment, type LifecycleDeps } from './lifecycle.js';
import { paidToDeposit, simulatedTxId } from './paidToDeposit.js';
import { readPayment, type MerchantScope } from './merchantPayments.js';
import { iso, toSnapshot, type PaymentSnapshot } from './snapshot.js';
import type { SettledStage, StageChange } from '../db/queries/paymentStages.js';

export type SimulateTarget = components['schemas']['SimulatePaymentRequest']['to'];

export const SAMPLE = {
  ...simulatedPayment,
  decimals: 6,
  failureReason: 'Simulated failure',
} as const;

/**
 * A fiat amount in the sample token's minor units: the simulated quote is one token per unit of the currency, so
 * USD 12.50 ("1250", 2 digits) is "12500000". Rounded up if a currency ever had more than 6 digits, as real
 * conversions are (docs/decisions.md §11).
 */
export function toSampleUnits(money: Money): bigint {
  const currency = currencyOfUnit(money.unit);
  // A base already configured in an on-chain asset is taken as sample-token units: there is no rate to apply.
  if (!currency) return BigInt(money.value);
  const value = BigInt(money.value);
  const shift = SAMPLE.decimals - currency.digits;
  if (shift >= 0) return value * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  return (value + divisor - 1n) / divisor;
}

export function sampleFee(merchant: MerchantRow, optionAmount: Money): FeeBreakdown | null {
  if (merchant.fee_config === null) return null;
  const config = parseFeeConfig(merchant.fee_config);
  return computeFee(config, optionAmount, toSampleUnits(config.base));
}

function stagesFor(
  to: Exclude<SimulateTarget, 'settled'>,
  payment: PaymentRow,
  merchant: MerchantRow,
  now: number,
): StageChange {
  switch (to) {
    case 'processing': {
      const amount = {
        unit: SAMPLE.unit,
        value: toSampleUnits({ unit: payment.amount_unit, value: payment.amount_value }).toString(),
      };
      return {
        processing: {
          processing_at: iso(now),
          option_amount: amount,
          fee: sampleFee(merchant, amount),
          settlement_amount: amount,
          buyer_caip10: SAMPLE.buyer,
          chain_caip2: SAMPLE.chain,
        },
      };
    }
    case 'succeeded':
      return { success: { succeeded_at: iso(now), tx_id: simulatedTxId(payment.id) } };
    case 'failed':
      return { failed: { failed_at: iso(now), failure_reason: SAMPLE.failureReason } };
    case 'expired':
      return { expired: { expired_at: iso(now) } };
    case 'cancelled':
      return { cancelled: { cancelled_at: iso(now), cancelled_by: 'merchant', cancellation_reason: null } };
  }
}

/**
 * Settlement by hand, allowed once, on a succeeded payment the automatic settlement has not reached yet. Refused for
 * a payment paid to a deposit address: its payout settles it, and a settlement by hand would announce one that no
 * payout made (and leave the payout's own settlement unannounced).
 */
async function settle(deps: LifecycleDeps, id: string): Promise<PaymentRow> {
  const { payment } = await recordStage(deps, id, 'settled', async (p, now, trx): Promise<SettledStage> => {
    if (p.status !== 'succeeded') {
      throw new ApiError('invalid_state', `Payment ${id} is ${p.status}; only a succeeded payment can settle.`);
    }
    if (p.stages.settled !== null) throw new ApiError('invalid_state', `Payment ${id} is already settled.`);
    if ((await paidToDeposit(trx, p)) !== null) {
      throw new ApiError(
        'invalid_state',
        `Payment ${id} was paid to a deposit address: it settles when the payout that covers it is final.`,
      );
    }
    const settlement = p.stages.processing?.settlement_amount ?? {
      unit: p.amount_unit,
      value: p.amount_value,
    };
    return { settled_at: iso(now), settlement_amount: settlement, tx_id: p.stages.success?.tx_id ?? null };
  });
  return payment;
}

export async function simulatePayment(
  deps: LifecycleDeps,
  merchant: MerchantRow,
  scope: MerchantScope,
  id: string,
  to: SimulateTarget,
): Promise<PaymentSnapshot> {
  if (scope.live) throw new ApiError('forbidden', 'simulatePayment accepts test keys (sk_test_…) only.');
  // A read like any other: a payment past its deadline is expired first, and then only the table's steps remain.
  const current = await readPayment(deps, scope, id);
  if (to === 'settled') return toSnapshot(await settle(deps, id), deps.secretBox);
  const { payment, changed } = await transitionPayment(deps, id, {
    to,
    stages: stagesFor(to, current, merchant, deps.now()),
  });
  // The lifecycle treats a repeat as a no-op; simulate is one step per call, and a repeat is not a step.
  if (!changed) throw new ApiError('invalid_state', `Payment ${id} is already ${to}.`);
  return toSnapshot(payment, deps.secretBox);
}
