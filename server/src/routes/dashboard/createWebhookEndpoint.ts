import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { createEndpoint } from '../../webhooks/endpoints.js';
import { endpointJson } from '../../webhooks/wire.js';

type Operation = operations['createWebhookEndpoint'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/dashboard/webhook-endpoint: the one answer that shows the signing secret (with rotate's). */
export function createWebhookEndpointHandler(deps: WebhookDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const { endpoint, secret } = await createEndpoint(deps, merchantId, mode, req.body);
    res.status(201).json({ endpoint: endpointJson(endpoint, deps.now()), secret });
  };
}
