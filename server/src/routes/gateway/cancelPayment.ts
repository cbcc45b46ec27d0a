import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { cancelBuyerPayment, type BuyerPaymentDeps } from '../../checkout/buyerPayments.js';

type Operation = operations['cancelPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/gateway/payment/{id}/cancel (the body, when sent, is `{}`) */
export function cancelPaymentHandler(deps: BuyerPaymentDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    res.json(await cancelBuyerPayment(deps, { live: auth.mode === 'live' }, req.params.id));
  };
}
