import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { cancelMerchantPayment } from '../../payments/merchantPayments.js';

type Operation = operations['cancelDashboardPayment'];
type Body = NonNullable<Operation['requestBody']>['content']['application/json'] | undefined;
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/payments/{paymentId}/cancel: the merchant API's cancel (the body is optional) */
export function cancelDashboardPaymentHandler(
  deps: LifecycleDeps,
): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const scope = { merchantId, live: mode === 'live' };
    res.json(await cancelMerchantPayment(deps, scope, req.params.paymentId, req.body?.reason));
  };
}
