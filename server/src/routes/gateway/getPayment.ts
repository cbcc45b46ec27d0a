import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { buyerPaymentInfo, type BuyerPaymentDeps } from '../../checkout/buyerPayments.js';

type Operation = operations['getPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/gateway/payment/{id} */
export function getPaymentHandler(deps: BuyerPaymentDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    res.json(await buyerPaymentInfo(deps, { live: auth.mode === 'live' }, req.params.id));
  };
}
