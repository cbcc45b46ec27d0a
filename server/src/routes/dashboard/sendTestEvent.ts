import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { sendTestEvent } from '../../webhooks/recovery.js';
import { deliveryJson } from '../../webhooks/wire.js';

type Operation = operations['sendTestEvent'];
type Body = Operation['requestBody']['content']['application/json'];
type Accepted = Operation['responses'][202]['content']['application/json'];

/** POST /v1/dashboard/webhook-endpoint/test */
export function sendTestEventHandler(deps: WebhookDeps): RequestHandler<Record<string, never>, Accepted, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const { delivery, event } = await sendTestEvent(deps, merchantId, mode, req.body.type);
    res.status(202).json({ delivery: deliveryJson(delivery, []), event });
  };
}
