import type { RequestHandler } from 'express';
import { ApiError } from '../../errors.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { createMerchantPayment, type MerchantDeps } from '../../payments/merchantPayments.js';

type Operation = operations['createDashboardTestPayment'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/dashboard/test-payment: the merchant API's createPayment, test mode only (the overview's first steps) */
export function createDashboardTestPaymentHandler(
  deps: MerchantDeps,
): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    if (mode === 'live') throw new ApiError('forbidden', 'Test payments are made in test mode; switch to test mode.');
    const answer = await createMerchantPayment(deps, { merchantId, live: false }, req.body);
    res.status(201).json(answer.body);
  };
}
