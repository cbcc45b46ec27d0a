import type { RequestHandler } from 'express';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { listDeliveryPage, type DeliveryList, type DeliveryListQuery } from '../../webhooks/deliveries.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';

/** GET /v1/dashboard/webhook-deliveries */
export function listWebhookDeliveriesHandler(
  deps: WebhookDeps,
): RequestHandler<Record<string, never>, DeliveryList, unknown, DeliveryListQuery> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await listDeliveryPage(deps, merchantId, mode, req.query));
  };
}
