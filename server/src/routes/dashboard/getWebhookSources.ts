import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';

type Ok = operations['getWebhookSources']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/webhook-sources: PAYGATE_WEBHOOK_SOURCE_ADDRESSES, as configured (empty: not published) */
export function getWebhookSourcesHandler(deps: {
  config: { webhookSourceAddresses: string[] };
}): RequestHandler<Record<string, never>, Ok> {
  return (_req, res) => {
    res.json({ addresses: deps.config.webhookSourceAddresses });
  };
}
