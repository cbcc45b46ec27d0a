/**
 * Confirm: the option's results are verified on chain, then one transaction records the claim (unique forever per
 * transaction or authorization), moves the payment to `processing` and enqueues the claim's next step. Checks run
 * outside that transaction (they call the chain); the unique constraints decide races, and the losers answer the
 * winner's status when they sent the same results.
 */
import { createHash } from 'node:crypto';
import { hasCollectedData, saveCollectedData, validateCollectedData } from '../collect/index.js';
import { isUniqueViolation } from '../db/failure.js';
import { findMerchant } from '../db/queries/accounts.js';
import { findClaimOfPayment, insertClaim, type ClaimRow } from '../db/queries/claims.js';
import { insertDiscrepancy, type DiscrepancyKind } from '../db/queries/discrepancies.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { randomBase62 } from '../ids.js';
import { currencyOfUnit } from '../payments/currencies.js';
import { computeFee, parseFeeConfig, type FeeBreakdown, type Money } from '../payments/fees.js';
import {
  gatewayStatusAnswer,
  readGatewayPayment,
  waitForFinalStatus,
  type GatewayScope,
  type GatewayStatusResponse,
  type LongPoll,
} from '../payments/gatewayPayments.js';
import { transitionPayment } from '../payments/lifecycle.js';
import { iso } from '../payments/snapshot.js';
import type { ChainAdapter, ClaimDraft } from './adapters.js';
import { requireAdapter, type Checkout } from './checkout.js';
import { verifyOption, type OptionClaims, type VerifiedOption } from './optionToken.js';
import { paymentCollectData } from './options.js';
import { pairResults } from './results.js';

type ConfirmRequest = components['schemas']['ConfirmPaymentRequest'];

export function verifiedOptionOf(checkout: Checkout, paymentId: string, optionId: string): VerifiedOption {
  const option = verifyOption(checkout.optionSecret, optionId, paymentId);
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

/** A fiat amount in the option's asset, at the option's own rate, rounded up (docs/decisions.md §11). */
export function atOptionRate(claims: OptionClaims, money: Money): bigint {
  const currency = currencyOfUnit(money.unit);
  if (!currency) return BigInt(money.value);
  const scale = 10n ** BigInt(claims.decimals);
  const fiatScale = 10n ** BigInt(currency.digits);
  const numerator = BigInt(money.value) * scale * BigInt(claims.rate?.denominator ?? '1');
  const denominator = fiatScale * BigInt(claims.rate?.numerator ?? '1');
  return (numerator + denominator - 1n) / denominator;
}

function feeOf(feeConfig: Record<string, unknown> | null, claims: OptionClaims, amount: Money): FeeBreakdown | null {
  if (feeConfig === null) return null;
  const config = parseFeeConfig(feeConfig);
  return computeFee(config, amount, atOptionRate(claims, config.base));
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
  if (option.claims.kind !== 'eip3009') {
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
    const checked = validateCollectedData(body.collectedData);
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
      failed: { failed_at: iso(checkout.now()), failure_reason: 'The paying account did not pass screening.' },
    },
  }).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.code === 'invalid_state')) throw err;
  });
  throw new ApiError('sanctioned_user', 'This account cannot pay through this service.');
}

/** The answer to a confirm that repeats the accepted one: the current status, as if it had just been accepted. */
function sameConfirm(claim: ClaimRow | null, option: VerifiedOption, resultsDigest: string): boolean {
  return claim !== null && claim.optionDigest === option.digest && claim.resultsDigest === resultsDigest;
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
  const payment = await readGatewayPayment(checkout, scope, id);
  const option = verifiedOptionOf(checkout, id, body.optionId);
  const adapter = requireAdapter(checkout, option.claims.chain);
  const legs = pairResults(await adapter.actions(option), body.results);
  // Options this server issues pay on one chain; a leg of another namespace cannot be one of its results.
  if (legs.length !== 1 || legs[0]!.namespace !== adapter.namespace) {
    throw new ApiError('params_validation', 'results do not match the actions of this option.');
  }
  const results = legs[0]!.results;
  const resultsDigest = digest(results);
  const answer = async () => gatewayStatusAnswer(checkout, await waitForFinalStatus(checkout, scope, id, poll));

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
  // An authorization is valid only before the payment's expiry, so none can be confirmed in the grace period.
  if (late && option.claims.kind === 'eip3009') throw new ApiError('payment_expired', `Payment ${id} has expired.`);
  if (option.claims.kind === 'eip3009') refuseStaleQuote(checkout, option);
  await refuseScreened(checkout, payment, option.claims.account);
  await requireCollectedData(checkout, payment, body);

  const stale = quoteIsStale(checkout, option.claims);
  const draft = await adapter.verify(option, results, { payment, now }).catch((err: unknown) => {
    // With a stale quote only a transfer made in time could still count; anything else is answered as stale.
    if (stale && err instanceof ApiError) refuseStaleQuote(checkout, option);
    throw err;
  });
  if (option.claims.kind !== 'eip3009') {
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

  // Broadcast before the claim: a refused broadcast leaves the payment payable, and a repeat after a lost answer
  // finds the claim written by the first confirm.
  await draft.broadcast?.();
  await recordClaim(checkout, { payment, option, draft, resultsDigest, wallet: wallet.name, now });
  return answer();
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
  const merchant = await findMerchant(checkout.db.knex, input.payment.merchant_id);
  const optionAmount = { unit: `caip19/${option.claims.asset}`, value: option.claims.amount };
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
              fee: feeOf(merchant?.fee_config ?? null, option.claims, optionAmount),
              settlement_amount: optionAmount,
              buyer_caip10: option.claims.account,
              chain_caip2: option.claims.chain,
            },
          },
        },
        trx,
      );
      await checkout.jobs.add(trx, draft.nextTask, { paymentId: id }, { jobKey: `${draft.nextTask}:${id}` });
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
