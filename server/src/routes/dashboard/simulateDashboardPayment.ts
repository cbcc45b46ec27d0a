import type { RequestHandler } from 'express';
import { findMerchant } from '../../db/queries/accounts.js';
import { ApiError } from '../../errors.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { simulatePayment } from '../../payments/simulate.js';

type Operation = operations['simulateDashboardPayment'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/payments/{paymentId}/simulate: the merchant API's simulator, test mode only */
export function simulateDashboardPaymentHandler(
  deps: LifecycleDeps,
): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    if (mode === 'live') throw new ApiError('forbidden', 'Simulation is for test mode only; switch to test mode.');
    const merchant = await findMerchant(deps.db.knex, merchantId);
    if (!merchant) throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
    res.json(await simulatePayment(deps, merchant, { merchantId, live: false }, req.params.paymentId, req.body.to));
  };
}
