import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { listMerchantPayments } from '../../payments/merchantPayments.js';

type Operation = operations['listPayments'];
type Ok = Operation['responses'][200]['content']['application/json'];
type Query = NonNullable<Operation['parameters']['query']>;

/** GET /v1/merchant/payments (its alias GET /v1/payments is listPaymentsAlias.ts) */
export function listPaymentsHandler(deps: LifecycleDeps): RequestHandler<Record<string, never>, Ok, unknown, Query> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const list = await listMerchantPayments(deps, { merchantId: auth.merchant.id, live: auth.live }, req.query);
    res.json(list);
  };
}
