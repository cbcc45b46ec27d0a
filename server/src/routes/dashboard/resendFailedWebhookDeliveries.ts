import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { resendFailedSince } from '../../webhooks/recovery.js';

type Operation = operations['resendFailedWebhookDeliveries'];
type Body = Operation['requestBody']['content']['application/json'];
type Accepted = Operation['responses'][202]['content']['application/json'];

/** POST /v1/dashboard/webhook-deliveries/resend-failed (`since` in Unix seconds) */
export function resendFailedWebhookDeliveriesHandler(
  deps: WebhookDeps,
): RequestHandler<Record<string, never>, Accepted, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const resent = await resendFailedSince(deps, merchantId, mode, req.body.since * 1000);
    res.status(202).json({ resent });
  };
}
