import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { readPayment } from '../../payments/merchantPayments.js';
import { toSnapshot } from '../../payments/snapshot.js';

type Operation = operations['getDashboardPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/payments/{paymentId} */
export function getDashboardPaymentHandler(deps: LifecycleDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(
      toSnapshot(await readPayment(deps, { merchantId, live: mode === 'live' }, req.params.paymentId), deps.secretBox),
    );
  };
}
