import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { refundMerchantPayment } from '../../payments/merchantPayments.js';

type Operation = operations['refundPayment'];
type Body = NonNullable<Operation['requestBody']>['content']['application/json'] | undefined;
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/merchant/payment/{id}/refund: records an off-platform refund; no funds move (the body is optional). */
export function refundPaymentHandler(deps: LifecycleDeps): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    res.json(await refundMerchantPayment(deps, scope, req.params.id, req.body?.reason));
  };
}
