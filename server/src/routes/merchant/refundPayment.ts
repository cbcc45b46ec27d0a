import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { refundPayment, type RefundDeps } from '../../settlement/refunds.js';

type Operation = operations['refundPayment'];
type Body = NonNullable<Operation['requestBody']>['content']['application/json'] | undefined;
type Ok = Operation['responses'][200]['content']['application/json'];

/**
 * POST /v1/merchant/payment/{id}/refund: an on-chain refund for a payment settled in collected mode, otherwise the
 * record of an off-platform refund (the body is optional).
 */
export function refundPaymentHandler(deps: RefundDeps): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    res.json(await refundPayment(deps, scope, req.params.id, req.body ?? {}));
  };
}
