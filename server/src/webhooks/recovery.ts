/** The recovery tools of the spec: resend one, resend failed since T, replay what was never received, test events. */
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import {
  findDelivery,
  findFailedDeliveriesSince,
  findUndeliveredEvents,
  type DeliveryRow,
} from '../db/queries/webhooks.js';
import { iso, WEBHOOK_API_VERSION } from '../payments/snapshot.js';
import type { WebhookDeps } from './deps.js';
import { scheduleDelivery } from './delivery.js';
import { requireEndpoint, type Mode } from './endpoints.js';
import { REPLAY_WINDOW_MS } from './schedule.js';

export async function resendDelivery(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  deliveryId: string,
): Promise<DeliveryRow> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  const original = await findDelivery(deps.db.knex, deliveryId);
  if (!original || original.endpoint_id !== endpoint.id)
    throw new ApiError('invalid_params', `No delivery with id ${deliveryId}.`, { status: 404 });
  // A fresh attempt series for the same event id, so receivers deduplicate it like any redelivery.
  return deps.db.knex.transaction((trx) =>
    scheduleDelivery(deps, trx, endpoint, {
      id: original.event_id,
      type: original.event_type,
      payment_id: original.payment_id,
      live: original.live,
      payload: original.payload,
    }),
  );
}

export async function resendFailedSince(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  since: number,
): Promise<number> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  const failed = await findFailedDeliveriesSince(deps.db.knex, endpoint.id, since);
  await deps.db.knex.transaction(async (trx) => {
    for (const d of failed)
      await scheduleDelivery(deps, trx, endpoint, {
        id: d.event_id,
        type: d.event_type,
        payment_id: d.payment_id,
        live: d.live,
        payload: d.payload,
      });
  });
  return failed.length;
}

/** Events of the last 14 days (at most) that the endpoint never received. */
export async function replaySince(deps: WebhookDeps, merchantId: string, mode: Mode, since: number): Promise<number> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  if (since < deps.now() - REPLAY_WINDOW_MS)
    throw new ApiError('params_validation', 'since: replay reaches back at most 14 days.');
  const events = (await findUndeliveredEvents(deps.db.knex, endpoint.id, merchantId, mode === 'live', since)).filter(
    (e) => endpoint.event_types.includes(e.type),
  );
  await deps.db.knex.transaction(async (trx) => {
    for (const e of events)
      await scheduleDelivery(deps, trx, endpoint, {
        id: e.id,
        type: e.type,
        payment_id: e.payment_id,
        live: mode === 'live',
      });
  });
  return events.length;
}

const statusOfType: Record<string, string> = {
  'payment.created': 'requires_action',
  'payment.processing': 'processing',
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
  'payment.expired': 'expired',
  'payment.cancelled': 'cancelled',
  'payment.settled': 'succeeded',
};

/** A test event of any type: sample data, `live: false`, signed and delivered like a real one. */
export async function sendTestEvent(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  type: string,
): Promise<DeliveryRow> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  const status = statusOfType[type];
  if (!status) throw new ApiError('params_validation', `type: unknown event type ${type}.`);
  const now = deps.now();
  const at = iso(now);
  const paymentId = newId.payment();
  const amount = { unit: 'iso4217/USD', value: '1250' };
  const tokenAmount = {
    unit: 'caip19/eip155:31337/erc20:0x0000000000000000000000000000000000000000',
    value: '12500000',
  };
  const reached = ['processing', 'succeeded', 'failed'].includes(status) || type === 'payment.settled';
  const data = {
    payment_id: paymentId,
    merchant_id: merchantId,
    live: false,
    payment_state_version:
      type === 'payment.created' ? 0 : type === 'payment.settled' ? 3 : type === 'payment.succeeded' ? 2 : 1,
    reference_id: 'test-event',
    status,
    amount,
    created_at: at,
    expires_at: iso(now + 30 * 60_000),
    processing: reached
      ? {
          processing_at: at,
          option_amount: tokenAmount,
          fee: null,
          settlement_amount: tokenAmount,
          buyer_caip10: 'eip155:31337:0x000000000000000000000000000000000000dEaD',
          chain_caip2: 'eip155:31337',
        }
      : null,
    success: status === 'succeeded' ? { succeeded_at: at, tx_id: `test:${paymentId}` } : null,
    failed: status === 'failed' ? { failed_at: at, failure_reason: 'Simulated failure' } : null,
    cancelled:
      status === 'cancelled' ? { cancelled_at: at, cancelled_by: 'merchant', cancellation_reason: null } : null,
    expired: status === 'expired' ? { expired_at: at } : null,
    settled: type === 'payment.settled' ? { settled_at: at, settlement_amount: tokenAmount } : null,
    refunded: null,
  };
  const envelope = { id: newId.event(), type, api_version: WEBHOOK_API_VERSION, created_at: at, data };
  return deps.db.knex.transaction((trx) =>
    scheduleDelivery(deps, trx, endpoint, {
      id: envelope.id,
      type,
      payment_id: null,
      live: false,
      payload: JSON.stringify(envelope),
    }),
  );
}
