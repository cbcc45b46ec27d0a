import type { RequestHandler } from 'express';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { deleteEndpoint } from '../../webhooks/endpoints.js';

/** DELETE /v1/dashboard/webhook-endpoint: 204, no body */
export function deleteWebhookEndpointHandler(deps: WebhookDeps): RequestHandler {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    await deleteEndpoint(deps, merchantId, mode);
    res.status(204).end();
  };
}
