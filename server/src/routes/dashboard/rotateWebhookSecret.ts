import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { rotateSecret } from '../../webhooks/endpoints.js';
import { endpointJson } from '../../webhooks/wire.js';

type Ok = operations['rotateWebhookSecret']['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/webhook-endpoint/rotate-secret: the new secret, shown this once */
export function rotateWebhookSecretHandler(deps: WebhookDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const rotated = await rotateSecret(deps, merchantId, mode);
    const endpoint = endpointJson(rotated.endpoint, deps.now());
    res.json({ endpoint, secret: rotated.secret, previousSecretExpiresAt: endpoint.previousSecretExpiresAt! });
  };
}
