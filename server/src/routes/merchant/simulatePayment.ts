import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { simulatePayment } from '../../payments/simulate.js';

type Operation = operations['simulatePayment'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/merchant/test/payment/{id}/simulate (test keys only) */
export function simulatePaymentHandler(deps: LifecycleDeps): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    res.json(await simulatePayment(deps, auth.merchant, scope, req.params.id, req.body.to));
  };
}
