import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';
import { resendDelivery } from '../../webhooks/recovery.js';
import { deliveryJson } from '../../webhooks/wire.js';

type Operation = operations['resendWebhookDelivery'];
type Accepted = Operation['responses'][202]['content']['application/json'];

/** POST /v1/dashboard/webhook-deliveries/{deliveryId}/resend: a new delivery of the same event */
export function resendWebhookDeliveryHandler(
  deps: WebhookDeps,
): RequestHandler<Operation['parameters']['path'], Accepted> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const delivery = await resendDelivery(deps, merchantId, mode, req.params.deliveryId);
    res.status(202).json(deliveryJson(delivery, []));
  };
}
