/**
 * Confirm: the option's results are verified on chain, then one transaction records the claim (unique forever per
 * transaction or authorization), moves the payment to `processing` and enqueues the claim's next step. Checks run
 * outside that transaction (they call the chain); the unique constraints decide races, and the losers answer the
 * winner's status when they sent the same results.
 */
import { createHash } from 'node:crypto';
import type { ChainAdapter, OptionClaims, VerifiedOption } from '../chains/adapter.js';
import { collectedDataObject, hasCollectedData, saveCollectedData, validateCollectedData } from '../collect/index.js';
import { findClaimOfPayment } from '../db/queries/claims.js';
import type { PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { transitionPayment } from '../payments/lifecycle.js';
import { SCREENING_FAILURE_REASON } from './failureCode.js';
import { iso } from '../payments/snapshot.js';
import {
  buyerStatusAnswer,
  readBuyerPayment,
  waitForFinalStatus,
  type GatewayScope,
  type GatewayStatusResponse,
  type LongPoll,
} from './buyerPayments.js';
import { recordClaim, recordDiscrepancy, sameConfirm } from './recordClaim.js';
import { requireAdapter, type Checkout } from './context.js';
import { verifyOptionUnder } from './optionToken.js';
import { paymentCollectData } from './options.js';
import { pairResults } from './results.js';
import { settlementModeOf } from '../settlement/modes.js';

type ConfirmRequest = components['schemas']['ConfirmPaymentRequest'];

export function verifiedOptionOf(checkout: Checkout, paymentId: string, optionId: string): VerifiedOption {
  const option = verifyOptionUnder(checkout.optionSecrets, optionId, paymentId);
  if (!option) throw new ApiError('params_validation', `optionId is not a valid option of payment ${paymentId}.`);
  return option;
}

export function quoteIsStale(checkout: Checkout, claims: OptionClaims): boolean {
  return claims.quoteExpiresAt !== null && checkout.now() >= claims.quoteExpiresAt * 1000;
}

export function refuseStaleQuote(checkout: Checkout, option: VerifiedOption): void {
  if (quoteIsStale(checkout, option.claims)) {
    throw new ApiError('quote_expired', 'The quote of this option has expired; get payment options again.');
  }
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * An expired payment can no longer be paid, but money that moved for it must not vanish: a transfer that verifies
 * against the option is recorded as a late payment for the operator before `payment_expired` is answered.
 */
async function refuseExpired(
  checkout: Checkout,
  payment: PaymentRow,
  adapter: ChainAdapter,
  option: VerifiedOption,
  results: string[][],
): Promise<never> {
  // A claim the service settles moved nothing yet: there is no late money to record.
  if (!adapter.terms(option).settledByService) {
    const draft = await adapter.verify(option, results, { payment, now: checkout.now() }).catch(() => null);
    if (draft?.minedAt != null) {
      await recordDiscrepancy(
        checkout,
        payment,
        option.claims,
        draft,
        'late_payment',
        `Transfer mined at ${iso(draft.minedAt * 1000)}, after the payment expired at ${iso(payment.expires_at)}.`,
      );
    }
  }
  throw new ApiError('payment_expired', `Payment ${payment.id} has expired.`);
}

async function requireCollectedData(checkout: Checkout, payment: PaymentRow, body: ConfirmRequest): Promise<void> {
  const required = await paymentCollectData(checkout, payment);
  if (!required) return;
  if (body.collectedData !== undefined && body.collectedData !== null) {
    const checked = validateCollectedData(collectedDataObject(body.collectedData));
    if (!checked.ok) throw new ApiError('params_validation', `collectedData: ${checked.message}`);
    await saveCollectedData(checkout, payment.id, checked.value);
    return;
  }
  if (!(await hasCollectedData(checkout.db.knex, payment.id))) {
    throw new ApiError('params_validation', 'This option requires collectedData.');
  }
}

export async function refuseScreened(checkout: Checkout, payment: PaymentRow, account: string): Promise<void> {
  if (!checkout.screening.matches(account)) return;
  // The state machine's requires_action → failed (docs/decisions.md §1.2): the merchant learns the payment failed.
  await transitionPayment(checkout, payment.id, {
    to: 'failed',
    from: ['requires_action'],
    stages: {
      failed: { failed_at: iso(checkout.now()), failure_reason: SCREENING_FAILURE_REASON },
    },
  }).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.code === 'invalid_state')) throw err;
  });
  throw new ApiError('sanctioned_user', 'This account cannot pay through this service.');
}

/**
 * An option to a deposit address, issued while the merchant had a settlement address on its chain, is confirmed
 * after the address was removed: money the service would still relay or broadcast itself (nothing has moved yet) is
 * refused, so it never arrives where no payout can send it on (docs/decisions.md §22.14).
 */
async function refuseUnroutable(checkout: Checkout, payment: PaymentRow, chain: string): Promise<void> {
  const mode = await settlementModeOf(checkout.db.knex, payment);
  if (await mode.reachesMerchant(checkout, payment, chain)) return;
  throw new ApiError(
    'invalid_state',
    `Payment ${payment.id} can no longer be paid on ${chain}: the merchant is not paid out there. List its options again.`,
  );
}

export async function confirmPayment(
  checkout: Checkout,
  scope: GatewayScope,
  id: string,
  body: ConfirmRequest,
  poll: LongPoll,
  /** The wallet that confirms (its credential's label), shown as the buyer's account provider. */
  wallet: { name: string } = { name: 'Unknown wallet' },
): Promise<GatewayStatusResponse> {
  // The resource first (docs/decisions.md §2): an unknown or foreign payment is 404/403 whatever the body says.
  const payment = await readBuyerPayment(checkout, scope, id);
  const option = verifiedOptionOf(checkout, id, body.optionId);
  const adapter = requireAdapter(checkout, option.claims.chain);
  const legs = pairResults(await adapter.actions(option), body.results);
  // Options this server issues pay on one chain; a leg of another namespace cannot be one of its results.
  if (legs.length !== 1 || legs[0]!.namespace !== adapter.namespace) {
    throw new ApiError('params_validation', 'results do not match the actions of this option.');
  }
  const results = legs[0]!.results;
  const resultsDigest = digest(results);
  const answer = async () => buyerStatusAnswer(checkout, await waitForFinalStatus(checkout, scope, id, poll));

  const existing = await findClaimOfPayment(checkout.db.knex, id);
  if (sameConfirm(existing, option, resultsDigest)) return answer();
  if (payment.status === 'expired') return refuseExpired(checkout, payment, adapter, option, results);
  if (payment.status !== 'requires_action') {
    throw new ApiError(
      'invalid_state',
      payment.status === 'processing' || payment.status === 'succeeded'
        ? `Payment ${id} is already ${payment.status} with different results.`
        : `Payment ${id} is ${payment.status} and can no longer be paid.`,
    );
  }
  const now = checkout.now();
  const late = now >= payment.expires_at;
  const { settledByService } = adapter.terms(option);
  // What the service settles is valid only before the payment's expiry, so none can be confirmed in the grace period.
  if (late && settledByService) throw new ApiError('payment_expired', `Payment ${id} has expired.`);
  if (settledByService) refuseStaleQuote(checkout, option);
  await refuseScreened(checkout, payment, option.claims.account);
  await requireCollectedData(checkout, payment, body);

  const stale = quoteIsStale(checkout, option.claims);
  const draft = await adapter.verify(option, results, { payment, now }).catch((err: unknown) => {
    // With a stale quote only a transfer made in time could still count; anything else is answered as stale.
    if (stale && err instanceof ApiError) refuseStaleQuote(checkout, option);
    throw err;
  });
  if (!settledByService) {
    // A transfer mined while the quote (or the payment) was valid honours it, however late the confirm arrives.
    const minedMs = draft.minedAt === null ? null : draft.minedAt * 1000;
    if (late && (minedMs === null || minedMs > payment.expires_at)) {
      if (minedMs !== null) {
        await recordDiscrepancy(
          checkout,
          payment,
          option.claims,
          draft,
          'late_payment',
          'Transfer mined after the payment expired.',
        );
      }
      throw new ApiError('payment_expired', `Payment ${id} has expired.`);
    }
    if (stale && (minedMs === null || minedMs >= option.claims.quoteExpiresAt! * 1000)) {
      refuseStaleQuote(checkout, option);
    }
  }
  if (draft.excess < 0n) {
    await recordDiscrepancy(
      checkout,
      payment,
      option.claims,
      draft,
      'underpayment',
      'Transfer below the option amount.',
    );
    throw new ApiError(
      'params_validation',
      `results[0] sends ${BigInt(option.claims.amount) + draft.excess} but the option requires ${option.claims.amount}.`,
    );
  }

  // Nothing has moved yet when the service is still to relay or broadcast it: refused if it would land nowhere.
  if (settledByService || draft.broadcast) await refuseUnroutable(checkout, payment, option.claims.chain);
  // Broadcast before the claim: a refused broadcast leaves the payment payable, and a repeat after a lost answer
  // finds the claim written by the first confirm.
  await draft.broadcast?.();
  await recordClaim(checkout, { payment, option, draft, resultsDigest, wallet: wallet.name, now });
  return answer();
}
