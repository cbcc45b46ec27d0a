/**
 * The merchant interface's domain: create, read, list, cancel and record a refund, always within one merchant and
 * one mode (a test key sees only test payments; another merchant's payment or the other mode's is invisible).
 */
import type { Knex } from 'knex';
import { findPaymentStatus, type StatusReads } from '../db/queries/paymentStatus.js';
import { findOverduePayments, findPayment, listPayments, type PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import { currencyOfUnit } from '../currencies.js';
import type { PricedCurrencies } from '../quotes/index.js';
import { withIdempotencyKey, type IdempotencyDeps, type IdempotentAnswer } from './idempotency.js';
import {
  createPayment,
  createPaymentWithKey,
  expireIfOverdue,
  recordStage,
  transitionPayment,
  type LifecycleDeps,
  type NewPayment,
} from './lifecycle.js';
import { iso, toSnapshot, type PaymentSnapshot } from './snapshot.js';
import { checkDetails } from './details.js';
import { queryTermsOf } from './searchTerms.js';
import type { RefundedStage } from '../db/queries/paymentStages.js';
import { isFinal, merchantStatusOf, POLL_IN_MS, type PaymentStatus } from './stateMachine.js';

export type CreatePaymentRequest = components['schemas']['CreatePaymentRequest'];
export type CreatePaymentResponse = components['schemas']['CreatePaymentResponse'];
export type PaymentStatusResponse = components['schemas']['PaymentStatusResponse'];
export type PaymentList = components['schemas']['PaymentList'];

export interface MerchantDeps extends LifecycleDeps, IdempotencyDeps {
  config: { publicBaseUrl: string };
  /** The currencies the configured chains can price (quotes/pricedCurrencies.ts); absent: every currency. */
  pricedCurrencies?: PricedCurrencies;
}

/** Whose payments a request sees: the merchant of `Merchant-Id`, in the mode of the key. */
export interface MerchantScope {
  merchantId: string;
  live: boolean;
}

// Bounds of docs/decisions.md §5.
const SECOND = 1000;
export const DEFAULT_WINDOW_MS = 30 * 60 * SECOND;
export const MIN_WINDOW_MS = 60 * SECOND;
export const MAX_WINDOW_MS = 7 * 24 * 60 * 60 * SECOND;
const MAX_URL_LENGTH = 2048;
const VALUE = /^[1-9][0-9]{0,14}$/;
// The contract's referenceId rule: no control characters.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1F\x7F]/;
/** Overdue payments expired before a list query; the sweeper takes care of any beyond this. */
const EXPIRE_BEFORE_LIST = 100;

function invalid(message: string): ApiError {
  return new ApiError('params_validation', message);
}

function isHttpsUrl(value: string | undefined): value is string {
  if (value === undefined) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The rules the contract's schema cannot express (the dataset, the clock, the redirect rule), plus the schema's
 * own rules again, so the domain stays correct for callers that do not come through the validator.
 */
export function newPaymentFrom(now: number, scope: MerchantScope, body: CreatePaymentRequest): NewPayment {
  const { amount, referenceId, expiresAt, checkout } = body;
  if (!currencyOfUnit(amount.unit)) {
    throw invalid(`amount.unit ${amount.unit} is not an active ISO 4217 currency.`);
  }
  if (!VALUE.test(amount.value)) {
    throw invalid('amount.value must be a positive decimal integer string of 1 to 15 digits without leading zero.');
  }
  const referenceLength = [...referenceId].length;
  if (referenceLength < 1 || referenceLength > 255 || CONTROL.test(referenceId)) {
    throw invalid('referenceId must be 1 to 255 characters without control characters.');
  }
  let expiresAtMs = Math.ceil((now + DEFAULT_WINDOW_MS) / SECOND) * SECOND;
  if (expiresAt !== undefined) {
    expiresAtMs = expiresAt * SECOND;
    if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs < now + MIN_WINDOW_MS || expiresAtMs > now + MAX_WINDOW_MS) {
      throw invalid('expiresAt must be between 60 seconds and 7 days from now.');
    }
  }
  const { successUrl, errorUrl } = checkout ?? {};
  if ((successUrl?.length ?? 0) > MAX_URL_LENGTH || (errorUrl?.length ?? 0) > MAX_URL_LENGTH) {
    throw invalid(`Checkout URLs must be at most ${MAX_URL_LENGTH} characters.`);
  }
  // The spec's rule: both valid https URLs, or no redirect at all; never a refusal.
  const redirect = isHttpsUrl(successUrl) && isHttpsUrl(errorUrl);
  return {
    merchantId: scope.merchantId,
    live: scope.live,
    referenceId,
    amount: { unit: amount.unit, value: amount.value },
    expiresAt: expiresAtMs,
    successUrl: redirect ? successUrl! : null,
    errorUrl: redirect ? errorUrl! : null,
    details: checkDetails(body, amount.value),
  };
}

export function gatewayUrlOf(publicBaseUrl: string, paymentId: string): string {
  return `${publicBaseUrl}/pay/${paymentId}`;
}

function createdAnswer(deps: MerchantDeps, row: PaymentRow): CreatePaymentResponse {
  return {
    paymentId: row.id,
    gatewayUrl: gatewayUrlOf(deps.config.publicBaseUrl, row.id),
    status: merchantStatusOf[row.status],
    expiresAt: Math.floor(row.expires_at / SECOND),
    isFinal: isFinal(row.status),
    pollInMs: POLL_IN_MS,
  };
}

/**
 * A currency no chain of the payment's mode can price would give a payment without options: refused before anything
 * is written (docs/decisions.md §5). With no chain of that mode at all the payment is created, and its checkout says
 * why nothing is offered (`unavailableReason`, §22.14).
 */
export function refuseUnpriced(
  deps: Pick<MerchantDeps, 'pricedCurrencies'>,
  input: Pick<NewPayment, 'live' | 'amount'>,
): void {
  const priced = deps.pricedCurrencies?.(input.live);
  const code = input.amount.unit.slice('iso4217/'.length);
  if (!priced || priced.includes(code)) return;
  const mode = input.live ? 'live' : 'test';
  throw invalid(
    `amount.unit ${input.amount.unit}: no ${mode} chain of this server can price ${code}; ` +
      `priced currencies: ${priced.join(', ') || 'none'}.`,
  );
}

/** Creates a payment; with an `Idempotency-Key` at most once per key, replaying the first answer. */
export async function createMerchantPayment(
  deps: MerchantDeps,
  scope: MerchantScope,
  body: CreatePaymentRequest,
  idempotencyKey?: string,
): Promise<IdempotentAnswer<CreatePaymentResponse>> {
  const input = newPaymentFrom(deps.now(), scope, body);
  refuseUnpriced(deps, input);
  if (idempotencyKey === undefined) {
    return { status: 201, body: createdAnswer(deps, await createPayment(deps, input)), replayed: false };
  }
  return withIdempotencyKey(deps, { ...scope, key: idempotencyKey }, body, async (claim) => {
    const row = await createPaymentWithKey(deps, input, {
      ...claim,
      answer: (created) => ({ status: 201, body: JSON.stringify(createdAnswer(deps, created)) }),
    });
    return row && { status: 201, body: createdAnswer(deps, row) };
  });
}

/** Another merchant's payment, or one of the other mode, is answered exactly like an unknown id. */
function visible<T extends Pick<PaymentRow, 'merchant_id' | 'live'>>(
  payment: T | null,
  scope: MerchantScope,
  id: string,
): T {
  if (!payment || payment.merchant_id !== scope.merchantId || payment.live !== scope.live) {
    throw new ApiError('payment_not_found', `No payment with id ${id}.`);
  }
  return payment;
}

async function findVisiblePayment(deps: LifecycleDeps, scope: MerchantScope, id: string): Promise<PaymentRow> {
  return visible(await findPayment(deps.db.knex, id), scope, id);
}

/** A visible payment as of now: one past its deadline is expired (with its event) before anyone sees it. */
export async function readPayment(deps: LifecycleDeps, scope: MerchantScope, id: string): Promise<PaymentRow> {
  return expireIfOverdue(deps, await findVisiblePayment(deps, scope, id));
}

/**
 * The status of a visible payment as of now, from the few columns it needs. A payment that may be past its
 * deadline takes the full read instead, which expires it by the lifecycle's own rule (grace included): the test
 * here only decides which read to take, so it errs towards the full one.
 */
export async function readPaymentStatus(
  deps: LifecycleDeps & { statusReads: StatusReads },
  scope: MerchantScope,
  id: string,
): Promise<PaymentStatusResponse> {
  const payment = visible(await findPaymentStatus(deps.statusReads, id), scope, id);
  if (payment.status === 'requires_action' && deps.now() >= payment.expires_at) {
    return statusAnswer(await readPayment(deps, scope, id));
  }
  return statusAnswer(payment);
}

export function statusAnswer(row: Pick<PaymentRow, 'status'>): PaymentStatusResponse {
  const final = isFinal(row.status);
  return { status: merchantStatusOf[row.status], isFinal: final, pollInMs: final ? null : POLL_IN_MS };
}

export interface ListQuery {
  limit?: number;
  startingAfter?: string;
  status?: PaymentStatus;
  /** Unix seconds, as on the wire. */
  createdGte?: number;
  createdLt?: number;
  settled?: boolean;
  /** Exact match on `reference_id` (the dashboard's search; the merchant contract has no such filter). */
  referenceId?: string;
  /** The payments one payment link created (`link_id`). */
  linkId?: string;
  /** Bounds in ms, from WalletConnect Pay's RFC 3339 `startTs` / `endTs` (docs/decisions.md §28); with the above, both apply. */
  createdGteMs?: number;
  createdLtMs?: number;
  /** A substring of `reference_id` (WalletConnect Pay's `referenceId` search). */
  referenceContains?: string;
  /** The dashboard's search: whole words of the description and metadata values (payments/searchTerms.ts). */
  q?: string;
}

/** The words of a `q`, or a refusal when it has none: an empty search is a mistake, not "everything". */
export function searchTermsOfQuery(q: string | undefined): string[] | undefined {
  if (q === undefined) return undefined;
  const terms = queryTermsOf(q);
  if (terms.length === 0) {
    throw new ApiError('params_validation', 'q must contain at least one word (letters or digits).', { param: 'q' });
  }
  return terms;
}

const tighter = (a: number | undefined, b: number | undefined, pick: (x: number, y: number) => number) =>
  a === undefined ? b : b === undefined ? a : pick(a, b);

// Unix seconds beyond what a Date can hold match nothing anyway; clamping keeps the bound a safe integer.
const secondsToMs = (s: number | undefined) => (s === undefined ? undefined : Math.min(s, 8.64e12) * SECOND);

export async function listMerchantPayments(
  deps: LifecycleDeps,
  scope: MerchantScope,
  query: ListQuery,
): Promise<PaymentList> {
  const limit = query.limit ?? 20;
  const cursor = query.startingAfter ? await findVisiblePayment(deps, scope, query.startingAfter) : null;
  // Reads apply expiry, so filters on status see the truth rather than a deadline nobody has enforced yet.
  for (const payment of await findOverduePayments(deps.db.knex, deps.now(), EXPIRE_BEFORE_LIST, scope)) {
    await expireIfOverdue(deps, payment);
  }
  const rows = await listPayments(deps.db.knex, {
    merchantId: scope.merchantId,
    live: scope.live,
    limit: limit + 1,
    startingAfter: cursor ? { created_at: cursor.created_at, id: cursor.id } : undefined,
    status: query.status,
    createdGte: tighter(secondsToMs(query.createdGte), query.createdGteMs, Math.max),
    createdLt: tighter(secondsToMs(query.createdLt), query.createdLtMs, Math.min),
    settled: query.settled,
    referenceId: query.referenceId,
    linkId: query.linkId,
    referenceContains: query.referenceContains,
    terms: searchTermsOfQuery(query.q),
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    data: page.map((row) => toSnapshot(row, deps.secretBox)),
    hasMore,
    nextCursor: hasMore ? page[page.length - 1]!.id : null,
  };
}

/** Cancels an unpaid payment; cancelling a cancelled one answers it unchanged (no version, no event). */
export async function cancelMerchantPayment(
  deps: LifecycleDeps,
  scope: MerchantScope,
  id: string,
  reason: string | undefined,
): Promise<PaymentSnapshot> {
  // Expiry first: a payment past its deadline is expired, not cancellable (docs/decisions.md §12).
  await readPayment(deps, scope, id);
  const { payment } = await transitionPayment(deps, id, {
    to: 'cancelled',
    from: ['requires_action'],
    stages: {
      cancelled: { cancelled_at: iso(deps.now()), cancelled_by: 'merchant', cancellation_reason: reason ?? null },
    },
  });
  return toSnapshot(payment, deps.secretBox);
}

/** Records that the merchant refunded a succeeded payment off-platform; no funds move. */
export async function refundMerchantPayment(
  deps: LifecycleDeps,
  scope: MerchantScope,
  id: string,
  reason: string | undefined,
  /** The caller's transaction (a keyed refund stores its answer in it, settlement/refunds.ts). */
  outer?: Knex.Transaction,
): Promise<PaymentSnapshot> {
  visible(await findPayment(outer ?? deps.db.knex, id), scope, id);
  const { payment } = await recordStage(
    deps,
    id,
    'refunded',
    (p, now): RefundedStage => {
      if (p.status !== 'succeeded') {
        throw new ApiError(
          'payment_not_succeeded',
          `Payment ${id} is ${p.status}; only a succeeded payment can be refunded.`,
        );
      }
      if (p.stages.refunded !== null) {
        throw new ApiError('already_refunded', `A refund was already recorded for payment ${id}.`);
      }
      return { refunded_at: iso(now), reason: reason ?? null };
    },
    outer,
  );
  return toSnapshot(payment, deps.secretBox);
}
