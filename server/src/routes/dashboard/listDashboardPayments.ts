import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { listMerchantPayments } from '../../payments/merchantPayments.js';

type Operation = operations['listDashboardPayments'];
type Ok = Operation['responses'][200]['content']['application/json'];
type Query = NonNullable<Operation['parameters']['query']>;

/** GET /v1/dashboard/payments: the merchant API's list, plus the referenceId filter */
export function listDashboardPaymentsHandler(
  deps: LifecycleDeps,
): RequestHandler<Record<string, never>, Ok, unknown, Query> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await listMerchantPayments(deps, { merchantId, live: mode === 'live' }, req.query));
  };
}
