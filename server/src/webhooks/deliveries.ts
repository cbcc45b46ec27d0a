/** Reading deliveries: the dashboard's list and detail, shared by the API and the CLI. */
import { findVisibleDelivery, listAttempts, listDeliveries, type DeliveryStatus } from '../db/queries/webhooks.js';
import { ApiError } from '../errors.js';
import type { operations } from '../generated/dashboard.js';
import type { WebhookDeps } from './deliveryDeps.js';
import type { Mode } from './endpoints.js';
import { requireDelivery } from './recovery.js';
import { deliveryJson, type WebhookDeliveryJson } from './wire.js';

export type DeliveryListQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
export type DeliveryList = operations['listWebhookDeliveries']['responses'][200]['content']['application/json'];

export const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** One page, newest first; `startingAfter` must name a delivery the key can see (404 `invalid_params` otherwise). */
export async function listDeliveryPage(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  query: DeliveryListQuery,
): Promise<DeliveryList> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  // The HTTP validator enforces the bound; the CLI reaches here without it.
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new ApiError('params_validation', `limit: must be an integer from 1 to ${MAX_LIMIT}.`);
  let cursor: { created_at: number; id: string } | undefined;
  if (query.startingAfter !== undefined) {
    const after = await findVisibleDelivery(deps.db.knex, query.startingAfter, merchantId, mode === 'live');
    if (!after) {
      throw new ApiError('invalid_params', `startingAfter: no webhook delivery with id ${query.startingAfter}.`, {
        status: 404,
      });
    }
    cursor = { created_at: after.created_at, id: after.id };
  }
  const rows = await listDeliveries(deps.db.knex, {
    merchantId,
    live: mode === 'live',
    status: query.status as DeliveryStatus | undefined,
    eventType: query.eventType,
    eventId: query.eventId,
    paymentId: query.paymentId,
    createdGte: query.createdGte === undefined ? undefined : query.createdGte * 1000,
    createdLt: query.createdLt === undefined ? undefined : query.createdLt * 1000,
    startingAfter: cursor,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  return {
    data: page.map((d) => deliveryJson(d)),
    hasMore,
    nextCursor: hasMore ? page.at(-1)!.id : null,
  };
}

/** One delivery with its finished attempts, oldest first. */
export async function getDelivery(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  deliveryId: string,
): Promise<WebhookDeliveryJson> {
  const delivery = await requireDelivery(deps, merchantId, mode, deliveryId);
  return deliveryJson(delivery, await listAttempts(deps.db.knex, delivery.id));
}
