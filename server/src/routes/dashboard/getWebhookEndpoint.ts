import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { requireEndpoint } from '../../webhooks/endpoints.js';
import { endpointJson } from '../../webhooks/wire.js';

type Ok = operations['getWebhookEndpoint']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/webhook-endpoint (never the secret) */
export function getWebhookEndpointHandler(deps: WebhookDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(endpointJson(await requireEndpoint(deps, merchantId, mode), deps.now()));
  };
}
