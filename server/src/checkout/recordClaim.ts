/**
 * The claim: what a verified payment writes. In one transaction the claim (unique forever per transaction or
 * authorization), the move to `processing` with the amounts and fee, and the claim's next job; money that moved but
 * cannot pay (late, short, long) is recorded as a discrepancy for the operator (docs/decisions.md §17).
 */
import { isUniqueViolation } from '../db/failure.js';
import type { ClaimDraft, OptionClaims, VerifiedOption } from '../chains/adapter.js';
import { findMerchant } from '../db/queries/accounts.js';
import { findClaimOfPayment, insertClaim, type ClaimRow } from '../db/queries/claims.js';
import { insertDiscrepancy, type DiscrepancyKind } from '../db/queries/discrepancies.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import { randomBase62 } from '../ids.js';
import { feeOnAsset, type FeeBreakdown, type Money } from '../payments/fees.js';
import { transitionPayment } from '../payments/lifecycle.js';
import { iso } from '../payments/snapshot.js';
import { settlementModeOf } from '../settlement/modes.js';
import type { Checkout } from './context.js';
import { RELAY_TASK, WATCH_TASK } from './jobNames.js';

/** The fee on the option's amount, its fiat base at the option's own rate (docs/decisions.md §11). */
function feeOf(feeConfig: Record<string, unknown> | null, claims: OptionClaims, amount: Money): FeeBreakdown | null {
  return feeOnAsset(feeConfig, amount, claims.decimals, claims.rate);
}

export async function recordDiscrepancy(
  checkout: Checkout,
  payment: PaymentRow,
  claims: OptionClaims,
  draft: ClaimDraft,
  kind: DiscrepancyKind,
  note: string,
): Promise<void> {
  const expected = BigInt(claims.amount);
  const received = expected + draft.excess;
  await insertDiscrepancy(checkout.db.knex, {
    id: `dsc_${randomBase62(20)}`,
    paymentId: payment.id,
    kind,
    live: payment.live,
    chain: claims.chain,
    txId: draft.txId ?? draft.claimKey,
    assetUnit: `caip19/${claims.asset}`,
    expectedValue: expected.toString(),
    receivedValue: received.toString(),
    note,
    createdAt: checkout.now(),
  });
  checkout.logger.warn(
    { paymentId: payment.id, kind, chain: claims.chain, txId: draft.txId },
    'payment discrepancy recorded',
  );
}

/** The answer to a confirm that repeats the accepted one: the current status, as if it had just been accepted. */
export function sameConfirm(claim: ClaimRow | null, option: VerifiedOption, resultsDigest: string): boolean {
  return claim !== null && claim.optionDigest === option.digest && claim.resultsDigest === resultsDigest;
}

export interface ClaimInput {
  payment: PaymentRow;
  option: VerifiedOption;
  draft: ClaimDraft;
  /** What identifies the results that made the claim, so a repeat of the same ones is recognised. */
  resultsDigest: string;
  /** Shown as the buyer's account provider. */
  wallet: string;
  now: number;
  /** The transfer was found on chain, not sent by the service (Solana Pay): its money moved whatever happens here. */
  foundOnChain?: boolean;
}

/**
 * Writes a verified claim: in one transaction the claim (unique forever per transaction or authorization), the move
 * to `processing` and the claim's next job. Shared by confirm and the Solana Pay watcher. Money may already have
 * moved (a broadcast transfer, one found on chain), so a claim that cannot be written because the payment moved on
 * meanwhile is recorded as a discrepancy. Answers normally when the same results were already claimed.
 */
export async function recordClaim(checkout: Checkout, input: ClaimInput): Promise<void> {
  const { option, draft, resultsDigest, now } = input;
  const id = input.payment.id;
  // The payment's own mode: a merchant's switch after the payment was created changes nothing of it (§22.14).
  const mode = await settlementModeOf(checkout.db.knex, input.payment);
  // A transfer found on chain to a deposit where the merchant is no longer paid out (§22.14): it pays nothing and is
  // a finding, as detection records the same transfer (the finding's key makes the two one).
  if (input.foundOnChain && !(await mode.reachesMerchant(checkout, input.payment, option.claims.chain))) {
    await insertDiscrepancy(checkout.db.knex, {
      id: `dsc_${randomBase62(20)}`,
      paymentId: id,
      kind: 'unroutable_deposit',
      live: input.payment.live,
      chain: option.claims.chain,
      txId: draft.txId ?? draft.claimKey,
      assetUnit: `caip19/${option.claims.asset}`,
      expectedValue: '0',
      receivedValue: (BigInt(option.claims.amount) + draft.excess).toString(),
      note: `Deposit on ${option.claims.chain}, where the merchant has no settlement address: it pays nothing; refundable.`,
      createdAt: now,
    });
    throw new ApiError('invalid_state', `Payment ${id} can no longer be paid on ${option.claims.chain}.`);
  }
  const merchant = await findMerchant(checkout.db.knex, input.payment.merchant_id);
  const optionAmount = { unit: `caip19/${option.claims.asset}`, value: option.claims.amount };
  const fee = feeOf(merchant?.fee_config ?? null, option.claims, optionAmount);
  try {
    await checkout.db.knex.transaction(async (trx) => {
      await insertClaim(trx, {
        id: `clm_${randomBase62(20)}`,
        paymentId: id,
        claimKey: draft.claimKey,
        kind: draft.kind,
        chain: option.claims.chain,
        account: option.claims.account,
        optionDigest: option.digest,
        resultsDigest,
        txId: draft.txId,
        state: 'pending',
        details: { ...draft.details, wallet: input.wallet },
        createdAt: now,
        updatedAt: now,
      });
      await transitionPayment(
        checkout,
        id,
        {
          to: 'processing',
          from: ['requires_action'],
          stages: {
            processing: {
              processing_at: iso(now),
              option_amount: optionAmount,
              fee,
              settlement_amount: mode.settlementAmount(optionAmount, fee),
              buyer_caip10: option.claims.account,
              chain_caip2: option.claims.chain,
            },
          },
        },
        trx,
      );
      const task = draft.next === 'relay' ? RELAY_TASK : WATCH_TASK;
      await checkout.jobs.add(trx, task, { paymentId: id }, { jobKey: `${task}:${id}` });
    });
  } catch (err) {
    if (!isUniqueViolation(err) && !(err instanceof ApiError && err.code === 'invalid_state')) throw err;
    // Lost a race. The same results: the winner's claim stands. Anything else: say why.
    const winner = await findClaimOfPayment(checkout.db.knex, id);
    if (sameConfirm(winner, option, resultsDigest)) return;
    if (winner) throw new ApiError('invalid_state', `Payment ${id} is already processing with different results.`);
    const payment = (await findPayment(checkout.db.knex, id)) ?? input.payment;
    if (payment.status !== 'requires_action') {
      if (draft.broadcast || input.foundOnChain) {
        await recordDiscrepancy(
          checkout,
          payment,
          option.claims,
          draft,
          'late_payment',
          `${input.foundOnChain ? 'Found on chain' : 'Broadcast'} while the payment became ${payment.status}.`,
        );
      }
      throw new ApiError('invalid_state', `Payment ${id} is ${payment.status} and can no longer be paid.`);
    }
    throw new ApiError('params_validation', 'results[0] has already paid another payment.');
  }
  if (draft.excess > 0n) {
    await recordDiscrepancy(
      checkout,
      input.payment,
      option.claims,
      draft,
      'overpayment',
      'Transfer above the option amount.',
    );
  }
}
