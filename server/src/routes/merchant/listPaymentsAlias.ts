import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { ApiError } from '../../errors.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { listMerchantPayments, type ListQuery } from '../../payments/merchantPayments.js';

type Operation = operations['listPaymentsAlias'];
type Ok = Operation['responses'][200]['content']['application/json'];
type Query = NonNullable<Operation['parameters']['query']>;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 timestamp in ms; Date.parse alone would roll 2026-02-30 over into March. */
function timestamp(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = RFC3339.exec(value);
  const [year, month, day, hour, minute, second] = (m ?? []).slice(1, 7).map(Number) as number[];
  const date = m ? new Date(Date.UTC(year!, month! - 1, day!)) : null;
  const ms = Date.parse(value);
  if (
    !date ||
    date.getUTCMonth() !== month! - 1 ||
    date.getUTCDate() !== day! ||
    hour! > 23 ||
    minute! > 59 ||
    second! > 59 ||
    Number.isNaN(ms)
  ) {
    throw new ApiError('params_validation', `${name} must be an RFC 3339 timestamp, such as 2026-02-18T10:00:00Z.`);
  }
  return ms;
}

/**
 * WalletConnect Pay's list parameters in Paygate's terms (docs/decisions.md §28): what maps onto the list is taken,
 * an order the list cannot serve is refused rather than silently answered in another order.
 */
export function aliasListQuery(query: Query): ListQuery {
  const { startTs, endTs, cursor, sortBy, sortDir, referenceId, ...own } = query;
  if (cursor !== undefined && own.startingAfter !== undefined) {
    throw new ApiError('params_validation', 'Send cursor or startingAfter, not both: they are the same cursor.');
  }
  if (sortBy === 'amount') {
    throw new ApiError('params_validation', 'sortBy=amount is not served: payments are listed by date.');
  }
  if (sortDir === 'asc') {
    throw new ApiError('params_validation', 'sortDir=asc is not served: payments are listed newest first.');
  }
  return {
    ...own,
    startingAfter: own.startingAfter ?? cursor,
    createdGteMs: timestamp('startTs', startTs),
    createdLtMs: timestamp('endTs', endTs),
    referenceContains: referenceId,
  };
}

/** GET /v1/payments: `listPayments`, also under WalletConnect Pay's parameter names */
export function listPaymentsAliasHandler(
  deps: LifecycleDeps,
): RequestHandler<Record<string, never>, Ok, unknown, Query> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    res.json(await listMerchantPayments(deps, scope, aliasListQuery(req.query)));
  };
}
