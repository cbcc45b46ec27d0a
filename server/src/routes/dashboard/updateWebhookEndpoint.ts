import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { updateEndpointSettings } from '../../webhooks/endpoints.js';
import { endpointJson } from '../../webhooks/wire.js';

type Operation = operations['updateWebhookEndpoint'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** PATCH /v1/dashboard/webhook-endpoint */
export function updateWebhookEndpointHandler(deps: WebhookDeps): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const endpoint = await updateEndpointSettings(deps, merchantId, mode, req.body);
    res.json(endpointJson(endpoint, deps.now()));
  };
}
