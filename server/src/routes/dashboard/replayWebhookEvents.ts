import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { replaySince } from '../../webhooks/recovery.js';

type Operation = operations['replayWebhookEvents'];
type Body = Operation['requestBody']['content']['application/json'];
type Accepted = Operation['responses'][202]['content']['application/json'];

/** POST /v1/dashboard/webhook-events/replay (`since` in Unix seconds) */
export function replayWebhookEventsHandler(deps: WebhookDeps): RequestHandler<Record<string, never>, Accepted, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const replayed = await replaySince(deps, merchantId, mode, req.body.since * 1000);
    res.status(202).json({ replayed });
  };
}
