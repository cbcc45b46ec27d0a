import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { refundMerchantPayment } from '../../payments/merchantPayments.js';
import { refuseOffPlatformRefundOfCollected } from '../../settlement/refunds.js';

type Operation = operations['refundDashboardPayment'];
type Body = NonNullable<Operation['requestBody']>['content']['application/json'] | undefined;
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/payments/{paymentId}/refund: records an off-platform refund (the body is optional) */
export function refundDashboardPaymentHandler(
  deps: LifecycleDeps,
): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const scope = { merchantId, live: mode === 'live' };
    await refuseOffPlatformRefundOfCollected(deps, scope, req.params.paymentId);
    res.json(await refundMerchantPayment(deps, scope, req.params.paymentId, req.body?.reason));
  };
}
