import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { getPaymentTimeline, type TimelineQuery } from '../../webhooks/timeline.js';

type Operation = operations['getPaymentTimeline'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/payments/{paymentId}/timeline */
export function getPaymentTimelineHandler(
  deps: LifecycleDeps,
): RequestHandler<Operation['parameters']['path'], Ok, unknown, TimelineQuery> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await getPaymentTimeline(deps, { merchantId, live: mode === 'live' }, req.params.paymentId, req.query));
  };
}
