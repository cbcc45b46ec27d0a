import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { gatewayPaymentInfo, type GatewayDeps } from '../../payments/gatewayPayments.js';

type Operation = operations['getPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/gateway/payment/{id} */
export function getPaymentHandler(deps: GatewayDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    res.json(await gatewayPaymentInfo(deps, { live: auth.mode === 'live' }, req.params.id));
  };
}
