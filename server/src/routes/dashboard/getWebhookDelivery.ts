import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { getDelivery } from '../../webhooks/deliveries.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';

type Operation = operations['getWebhookDelivery'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/webhook-deliveries/{deliveryId}, with its attempts */
export function getWebhookDeliveryHandler(deps: WebhookDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await getDelivery(deps, merchantId, mode, req.params.deliveryId));
  };
}
