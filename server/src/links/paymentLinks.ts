/**
 * Payment links (issue 35 §2, docs/decisions.md §30.5–§30.6): a merchant's reusable link, in one mode, whose every
 * visit creates a payment (links/visits.ts). This module holds the link itself: the rules the schema cannot say,
 * create, read with totals, list, update and deactivate, always within one merchant and mode.
 */
import { currencyOfUnit } from '../currencies.js';
import {
  findPaymentLink,
  insertPaymentLink,
  linkTotals,
  listPaymentLinks,
  updatePaymentLink,
  type LinkTotals,
  type PaymentLinkRow,
} from '../db/queries/linkRows.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import { randomBase62 } from '../ids.js';
import type { Database } from '../db/connect.js';
import type { PricedCurrencies } from '../quotes/index.js';
import { refuseUnpriced, type MerchantScope } from '../payments/merchantPayments.js';

export type PaymentLink = components['schemas']['PaymentLink'];
export type PaymentLinkList = components['schemas']['PaymentLinkList'];
export type CreatePaymentLinkRequest = components['schemas']['CreatePaymentLinkRequest'];
export type UpdatePaymentLinkRequest = components['schemas']['UpdatePaymentLinkRequest'];
export type PaymentLinkState = components['schemas']['PaymentLinkState'];

export interface PaymentLinkDeps {
  db: Database;
  now: () => number;
  config: { publicBaseUrl: string };
  pricedCurrencies?: PricedCurrencies;
}

const SECOND = 1000;
/** The largest amount a payment takes: 15 digits (the contract's `amount.value`). */
export const MAX_PAYMENT_AMOUNT = 999_999_999_999_999n;
const DEFAULT_MAX_QUANTITY = 99;
const LINK_ID = /^plink_[0-9A-Za-z]{20}$/;

export const newLinkId = () => `plink_${randomBase62(20)}`;

const invalid = (message: string) => new ApiError('params_validation', message);

function notFound(id: string): ApiError {
  // The spec's 35 codes have none for a link: the dashboard's missing-resource answer (docs/decisions.md §2).
  return new ApiError('invalid_params', `No payment link with id ${id}.`, { status: 404 });
}

export function linkUrlOf(publicBaseUrl: string, linkId: string): string {
  return `${publicBaseUrl}/l/${linkId}`;
}

/** Whether a visit may create a payment now, and if not, why (the order a buyer would want to read it in). */
export function linkStateOf(row: PaymentLinkRow, now: number): PaymentLinkState {
  if (!row.active) return 'deactivated';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  if (row.max_uses !== null && row.uses >= row.max_uses) return 'used_up';
  return 'active';
}

const seconds = (ms: number) => Math.floor(ms / SECOND);

export function toApiLink(deps: Pick<PaymentLinkDeps, 'now' | 'config'>, row: PaymentLinkRow, totals: LinkTotals) {
  const link: PaymentLink = {
    id: row.id,
    url: linkUrlOf(deps.config.publicBaseUrl, row.id),
    live: row.live,
    state: linkStateOf(row, deps.now()),
    active: row.active,
    currency: row.currency,
    amount: row.amount_value,
    minAmount: row.min_amount,
    maxAmount: row.max_amount,
    adjustableQuantity: row.quantity_adjustable,
    maxQuantity: row.max_quantity,
    description: row.description,
    lineItems: row.line_items,
    metadata: row.metadata,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    expiresAt: row.expires_at === null ? null : seconds(row.expires_at),
    maxUses: row.max_uses,
    uses: row.uses,
    createdAt: seconds(row.created_at),
    updatedAt: seconds(row.updated_at),
    totals: { ...totals, succeededAmount: totals.succeededAmount.toString() },
  };
  return link;
}

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Both redirect URLs or neither, each an https URL: a link's buyer should never land on a half-configured redirect. */
function redirectsOf(successUrl: string | null | undefined, cancelUrl: string | null | undefined) {
  const success = successUrl ?? null;
  const cancel = cancelUrl ?? null;
  if ((success === null) !== (cancel === null)) throw invalid('Give both successUrl and cancelUrl, or neither.');
  for (const url of [success, cancel]) {
    if (url !== null && (url.length > 2048 || !isHttpsUrl(url))) {
      throw invalid('successUrl and cancelUrl must be https URLs of at most 2048 characters.');
    }
  }
  return { success_url: success, cancel_url: cancel };
}

function futureExpiry(now: number, expiresAt: number | null | undefined): number | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const ms = expiresAt * SECOND;
  if (!Number.isSafeInteger(ms) || ms <= now) throw invalid('expiresAt must be in the future.');
  return ms;
}

/** The link row a create asks for, after every rule the schema cannot express. */
export function newLinkFrom(deps: PaymentLinkDeps, scope: MerchantScope, body: CreatePaymentLinkRequest) {
  const now = deps.now();
  if (!currencyOfUnit(body.currency)) throw invalid(`currency ${body.currency} is not an active ISO 4217 currency.`);
  refuseUnpriced(deps, { live: scope.live, amount: { unit: body.currency, value: '1' } });
  const fixed = body.amount !== undefined;
  const range = body.minAmount !== undefined || body.maxAmount !== undefined;
  if (fixed === range) throw invalid('Give either amount or both minAmount and maxAmount.');
  if (range) {
    if (body.minAmount === undefined || body.maxAmount === undefined) {
      throw invalid('Give both minAmount and maxAmount.');
    }
    if (BigInt(body.minAmount) > BigInt(body.maxAmount)) throw invalid('minAmount must not be above maxAmount.');
    if (body.adjustableQuantity || body.maxQuantity !== undefined || body.lineItems !== undefined) {
      throw invalid('A buyer-chosen amount takes no quantity and no lineItems.');
    }
  }
  if (body.maxQuantity !== undefined && !body.adjustableQuantity) {
    throw invalid('maxQuantity needs adjustableQuantity: true.');
  }
  const maxQuantity = body.adjustableQuantity ? (body.maxQuantity ?? DEFAULT_MAX_QUANTITY) : null;
  if (fixed && maxQuantity !== null && BigInt(body.amount!) * BigInt(maxQuantity) > MAX_PAYMENT_AMOUNT) {
    throw invalid('amount × maxQuantity must stay within 15 digits.');
  }
  if (body.lineItems && maxQuantity !== null && body.lineItems.some((l) => l.quantity * maxQuantity > 1_000_000)) {
    throw invalid('A line quantity × maxQuantity must stay within 1,000,000.');
  }
  if (body.lineItems) {
    const sum = body.lineItems.reduce((s, l) => s + BigInt(l.quantity) * BigInt(l.unitAmount), 0n);
    if (sum !== BigInt(body.amount!)) {
      throw invalid(`The lineItems add up to ${sum}, not to the amount ${body.amount}.`);
    }
  }
  const row: PaymentLinkRow = {
    id: newLinkId(),
    merchant_id: scope.merchantId,
    live: scope.live,
    currency: body.currency,
    amount_value: body.amount ?? null,
    min_amount: body.minAmount ?? null,
    max_amount: body.maxAmount ?? null,
    quantity_adjustable: body.adjustableQuantity ?? false,
    max_quantity: maxQuantity,
    description: body.description,
    line_items: body.lineItems ?? [],
    metadata: body.metadata ?? {},
    ...redirectsOf(body.successUrl, body.cancelUrl),
    expires_at: futureExpiry(now, body.expiresAt),
    max_uses: body.maxUses ?? null,
    uses: 0,
    active: true,
    created_at: now,
    updated_at: now,
  };
  return row;
}

export async function createPaymentLink(
  deps: PaymentLinkDeps,
  scope: MerchantScope,
  body: CreatePaymentLinkRequest,
): Promise<PaymentLink> {
  const row = newLinkFrom(deps, scope, body);
  await insertPaymentLink(deps.db.knex, row);
  return toApiLink(deps, row, { payments: 0, succeeded: 0, succeededAmount: 0n });
}

async function findVisibleLink(deps: PaymentLinkDeps, scope: MerchantScope, id: string): Promise<PaymentLinkRow> {
  // An id of another form names no link: no statement for it (as for payments, ids.ts isPaymentId).
  const row = LINK_ID.test(id) ? await findPaymentLink(deps.db.knex, id) : null;
  if (!row || row.merchant_id !== scope.merchantId || row.live !== scope.live) throw notFound(id);
  return row;
}

async function withTotals(deps: PaymentLinkDeps, row: PaymentLinkRow): Promise<PaymentLink> {
  const totals = await linkTotals(deps.db.knex, [row.id]);
  return toApiLink(deps, row, totals.get(row.id)!);
}

export async function getPaymentLink(deps: PaymentLinkDeps, scope: MerchantScope, id: string): Promise<PaymentLink> {
  return withTotals(deps, await findVisibleLink(deps, scope, id));
}

export async function listMerchantPaymentLinks(
  deps: PaymentLinkDeps,
  scope: MerchantScope,
  query: { limit?: number; startingAfter?: string },
): Promise<PaymentLinkList> {
  const limit = query.limit ?? 20;
  const after = query.startingAfter === undefined ? undefined : await findVisibleLink(deps, scope, query.startingAfter);
  const rows = await listPaymentLinks(deps.db.knex, { ...scope, limit: limit + 1, startingAfter: after });
  const page = rows.slice(0, limit);
  const totals = await linkTotals(
    deps.db.knex,
    page.map((r) => r.id),
  );
  const hasMore = rows.length > limit;
  return {
    data: page.map((row) => toApiLink(deps, row, totals.get(row.id)!)),
    hasMore,
    nextCursor: hasMore ? page[page.length - 1]!.id : null,
  };
}

export async function updateMerchantPaymentLink(
  deps: PaymentLinkDeps,
  scope: MerchantScope,
  id: string,
  body: UpdatePaymentLinkRequest,
): Promise<PaymentLink> {
  const row = await findVisibleLink(deps, scope, id);
  const now = deps.now();
  const change: Partial<PaymentLinkRow> = { updated_at: now };
  if (body.description !== undefined) change.description = body.description;
  if (body.metadata !== undefined) change.metadata = body.metadata;
  if (body.successUrl !== undefined || body.cancelUrl !== undefined) {
    Object.assign(
      change,
      redirectsOf(
        body.successUrl === undefined ? row.success_url : body.successUrl,
        body.cancelUrl === undefined ? row.cancel_url : body.cancelUrl,
      ),
    );
  }
  if (body.expiresAt !== undefined) change.expires_at = futureExpiry(now, body.expiresAt);
  if (body.maxUses !== undefined) change.max_uses = body.maxUses;
  if (body.active === true) change.active = true;
  await updatePaymentLink(deps.db.knex, row.id, change);
  return withTotals(deps, { ...row, ...change });
}

export async function deactivatePaymentLink(
  deps: PaymentLinkDeps,
  scope: MerchantScope,
  id: string,
): Promise<PaymentLink> {
  const row = await findVisibleLink(deps, scope, id);
  if (!row.active) return withTotals(deps, row);
  const change = { active: false, updated_at: deps.now() };
  await updatePaymentLink(deps.db.knex, row.id, change);
  return withTotals(deps, { ...row, ...change });
}
