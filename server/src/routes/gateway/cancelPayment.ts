import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { cancelGatewayPayment, type GatewayDeps } from '../../payments/gatewayPayments.js';

type Operation = operations['cancelPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/gateway/payment/{id}/cancel (the body, when sent, is `{}`) */
export function cancelPaymentHandler(deps: GatewayDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    res.json(await cancelGatewayPayment(deps, { live: auth.mode === 'live' }, req.params.id));
  };
}
