import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { fetchAction } from '../../checkout/fetch.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { checkoutOf, type CheckoutSource } from './checkoutOf.js';

type Operation = operations['fetchAction'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/gateway/payment/{id}/fetch */
export function fetchActionHandler(deps: CheckoutSource): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    res.json(await fetchAction(checkoutOf(deps), { live: auth.mode === 'live' }, req.params.id, req.body));
  };
}
