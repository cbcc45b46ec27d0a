/**
 * A visit of a payment link's page (`/l/{linkId}`, docs/decisions.md §30.6–§30.7): the payment it creates, or the
 * visitor's still-open one again, or why it cannot. The use is taken, the client address counted and the payment
 * inserted in one transaction, so a refused or failed visit leaves nothing behind and concurrent visits never take
 * more than `max_uses`.
 */
import { timingSafeEqual } from 'node:crypto';
import { currencyOfUnit, decimalOf } from '../currencies.js';
import { findPaymentLink, setPaymentLink, takeLinkUse, type PaymentLinkRow } from '../db/queries/linkRows.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { reserveAttempt, type ThrottleRule } from '../db/queries/throttleCounts.js';
import { ApiError } from '../errors.js';
import { createPayment, type LifecycleDeps } from '../payments/lifecycle.js';
import { newPaymentFrom } from '../payments/merchantPayments.js';
import type { ServerKeys } from '../users/serverKeys.js';
import { linkStateOf, MAX_PAYMENT_AMOUNT, type PaymentLinkState } from './paymentLinks.js';

export interface LinkVisitDeps extends LifecycleDeps {
  serverKeys: ServerKeys;
}

const MINUTE = 60_000;
/**
 * Payments one client address may create from links (all links together) in 10 minutes; then it waits out the
 * window. A buyer needs one or two; a visitor's open payment is reused and not counted. Held in the database
 * (`login_throttle`, db/queries/throttleCounts.ts), so it is one limit across every server process.
 */
export const LINK_VISIT_RULE: ThrottleRule = { windowMs: 10 * MINUTE, limit: 20, lockMs: 10 * MINUTE };
/** An open payment is reused only while the buyer still has this long to pay it; else a new one is fairer. */
const REUSE_MARGIN_MS = 5 * MINUTE;
const LINK_ID = /^plink_[0-9A-Za-z]{20}$/;

/** What the buyer asked for on the link's form: an amount in whole units ("12.50") and/or a quantity. */
export interface VisitChoice {
  amount?: string;
  quantity?: string;
}

export type VisitOutcome =
  | { kind: 'not_found' }
  | { kind: 'unusable'; link: PaymentLinkRow; state: Exclude<PaymentLinkState, 'active'> }
  /** The buyer must choose first (or chose something out of bounds: `error` says what). */
  | { kind: 'form'; link: PaymentLinkRow; error: string | null }
  | { kind: 'payment'; payment: PaymentRow; reused: boolean };

export async function findLinkForVisit(deps: LifecycleDeps, linkId: string): Promise<PaymentLinkRow | null> {
  return LINK_ID.test(linkId) ? findPaymentLink(deps.db.knex, linkId) : null;
}

export const needsChoice = (link: PaymentLinkRow) => link.amount_value === null || link.quantity_adjustable;

/** A decimal in whole units ("12.5", "12.50", "1,000.00" refused) as minor units, or null when it is not one. */
export function minorUnitsOf(text: string, digits: number): bigint | null {
  const match = /^([0-9]{1,15})(?:\.([0-9]+))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return null;
  return BigInt(match[1]! + fraction.padEnd(digits, '0'));
}

/** The payment's amount for this choice, or the sentence the form shows when the choice is out of bounds. */
function amountFor(link: PaymentLinkRow, choice: VisitChoice): { value: bigint; quantity: number } | string {
  const digits = currencyOfUnit(link.currency)?.digits ?? 2;
  let quantity = 1;
  if (link.quantity_adjustable) {
    const q = /^[0-9]{1,7}$/.test(choice.quantity ?? '') ? Number(choice.quantity) : NaN;
    if (!(q >= 1 && q <= link.max_quantity!)) return `Choose a quantity from 1 to ${link.max_quantity}.`;
    quantity = q;
  }
  if (link.amount_value !== null) return { value: BigInt(link.amount_value) * BigInt(quantity), quantity };
  const value = minorUnitsOf(choice.amount ?? '', digits);
  const min = BigInt(link.min_amount!);
  const max = BigInt(link.max_amount!);
  if (value === null || value < min || value > max || value > MAX_PAYMENT_AMOUNT) {
    const code = link.currency.slice('iso4217/'.length);
    return `Enter an amount from ${decimalOf(min, digits)} to ${decimalOf(max, digits)} ${code}.`;
  }
  return { value, quantity };
}

/** The signed value of the visitor's cookie for this link: the payment's id and a MAC over link and payment. */
export function visitorCookieValue(deps: Pick<LinkVisitDeps, 'serverKeys'>, linkId: string, paymentId: string) {
  return `${paymentId}.${mac(deps, linkId, paymentId)}`;
}

function mac(deps: Pick<LinkVisitDeps, 'serverKeys'>, linkId: string, paymentId: string): string {
  return deps.serverKeys.hash('link visitor', `cookie:${linkId}:${paymentId}`).subarray(0, 18).toString('base64url');
}

function paymentOfCookie(deps: Pick<LinkVisitDeps, 'serverKeys'>, linkId: string, cookie: string | undefined) {
  const [paymentId, given] = (cookie ?? '').split('.');
  if (!paymentId || !given) return null;
  const expected = Buffer.from(mac(deps, linkId, paymentId));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? paymentId : null;
}

/** The visitor's payment from this link, still open with time left to pay, and for the same amount; else null. */
async function reusablePayment(
  deps: LinkVisitDeps,
  link: PaymentLinkRow,
  cookie: string | undefined,
  amount: bigint | null,
): Promise<PaymentRow | null> {
  const paymentId = paymentOfCookie(deps, link.id, cookie);
  if (!paymentId) return null;
  const payment = await findPayment(deps.db.knex, paymentId);
  if (!payment || payment.link_id !== link.id || payment.status !== 'requires_action') return null;
  if (payment.expires_at - deps.now() < REUSE_MARGIN_MS) return null;
  if (amount !== null && payment.amount_value !== amount.toString()) return null;
  return payment;
}

function addressKey(deps: Pick<LinkVisitDeps, 'serverKeys'>, ip: string | null): string {
  // Keyed, so the table holds no client address (docs/decisions.md §21.6's rule for the sign-in throttle).
  return `link:${deps.serverKeys.hash('link visitor', `address:${ip ?? ''}`).toString('hex')}`;
}

const tooMany = () =>
  new ApiError('rate_limited', 'Too many payments were started from this address; try again in a few minutes.', {
    headers: { 'Retry-After': String(LINK_VISIT_RULE.lockMs / 1000) },
  });

/**
 * A visit: `choice` null is a plain visit of the page (GET), which creates a payment only for a link that needs no
 * choice; a visitor's open payment from the link is reused either way. Throws 429 rate_limited when the client
 * address has created too many payments from links lately.
 */
export async function visitLink(
  deps: LinkVisitDeps,
  linkId: string,
  visitor: { ip: string | null; cookie: string | undefined },
  choice: VisitChoice | null,
): Promise<VisitOutcome> {
  const link = await findLinkForVisit(deps, linkId);
  if (!link) return { kind: 'not_found' };
  const state = linkStateOf(link, deps.now());
  if (choice === null) {
    const open = await reusablePayment(deps, link, visitor.cookie, null);
    if (open) return { kind: 'payment', payment: open, reused: true };
    if (state !== 'active') return { kind: 'unusable', link, state };
    if (needsChoice(link)) return { kind: 'form', link, error: null };
  } else if (state !== 'active') {
    return { kind: 'unusable', link, state };
  }
  const amount = amountFor(link, choice ?? {});
  if (typeof amount === 'string') return { kind: 'form', link, error: amount };
  const open = await reusablePayment(deps, link, visitor.cookie, amount.value);
  if (open) return { kind: 'payment', payment: open, reused: true };
  const now = deps.now();
  const input = {
    ...newPaymentFrom(
      now,
      { merchantId: link.merchant_id, live: link.live },
      {
        amount: { unit: link.currency, value: amount.value.toString() },
        referenceId: link.id,
        // What the link sells, copied into the payment (§30.5): its lines times the chosen quantity add up to the
        // amount, as the link's own lines add up to its price.
        description: link.description,
        ...(link.line_items.length === 0
          ? {}
          : { lineItems: link.line_items.map((l) => ({ ...l, quantity: l.quantity * amount.quantity })) }),
        ...(Object.keys(link.metadata).length === 0 ? {} : { metadata: link.metadata }),
        ...(link.success_url && link.cancel_url
          ? { checkout: { successUrl: link.success_url, errorUrl: link.cancel_url } }
          : {}),
      },
    ),
    linkId: link.id,
  };
  const payment = await deps.db.knex.transaction(async (trx) => {
    if ((await reserveAttempt(trx, addressKey(deps, visitor.ip), now, LINK_VISIT_RULE)) === null) throw tooMany();
    if (!(await takeLinkUse(trx, link.id, now))) return null;
    const row = await createPayment(deps, input, trx);
    await setPaymentLink(trx, row.id, link.id);
    return row;
  });
  if (!payment) {
    // Another visit took the last use (or the link changed) since it was read: say why, from a fresh read.
    const fresh = (await findPaymentLink(deps.db.knex, link.id)) ?? link;
    const now2 = linkStateOf(fresh, deps.now());
    return { kind: 'unusable', link: fresh, state: now2 === 'active' ? 'used_up' : now2 };
  }
  return { kind: 'payment', payment, reused: false };
}
