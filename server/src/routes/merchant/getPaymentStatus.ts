import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { StatusReads } from '../../db/queries/paymentStatus.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { readPaymentStatus } from '../../payments/merchantPayments.js';

type Operation = operations['getPaymentStatus'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/merchant/payment/{id}/status, and its alias GET /v1/payments/{id}/status */
export function getPaymentStatusHandler(
  deps: LifecycleDeps & { statusReads: StatusReads },
): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    res.json(await readPaymentStatus(deps, { merchantId: auth.merchant.id, live: auth.live }, req.params.id));
  };
}
