import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { listPaymentOptions } from '../../checkout/options.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { checkoutOf, type CheckoutSource } from './checkoutOf.js';

type Operation = operations['getPaymentOptions'];
type Body = Operation['requestBody']['content']['application/json'];
type Query = NonNullable<Operation['parameters']['query']>;
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/gateway/payment/{id}/options */
export function getPaymentOptionsHandler(
  deps: CheckoutSource,
): RequestHandler<Operation['parameters']['path'], Ok, Body, Query> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    const includeInfo = String(req.query.includePaymentInfo) === 'true';
    res.json(
      await listPaymentOptions(checkoutOf(deps), { live: auth.mode === 'live' }, req.params.id, req.body, includeInfo),
    );
  };
}
