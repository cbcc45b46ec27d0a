import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { readPayment } from '../../payments/merchantPayments.js';
import { toSnapshot } from '../../payments/snapshot.js';

type Operation = operations['getPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/merchant/payment/{id} */
export function getPaymentHandler(deps: LifecycleDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const payment = await readPayment(deps, { merchantId: auth.merchant.id, live: auth.live }, req.params.id);
    res.json(toSnapshot(payment, deps.secretBox));
  };
}
