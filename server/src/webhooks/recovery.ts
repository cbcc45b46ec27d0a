/**
 * The recovery tools of the spec: resend one delivery, resend what failed since T, replay what an endpoint never
 * received, send a test event. Each creates new deliveries of the same event (same id and body, fresh attempts), so
 * a receiver that deduplicates on `webhook-id` processes an event once however often it arrives.
 */
import { findMerchant } from '../db/queries/accounts.js';
import {
  findEndpoint,
  findResendableFailures,
  findUnreceivedEvents,
  findVisibleDelivery,
  type DeliveryRow,
} from '../db/queries/webhooks.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { SAMPLE, sampleFee, toSampleUnits } from '../payments/simulate.js';
import { iso, WEBHOOK_API_VERSION, type WebhookEvent } from '../payments/snapshot.js';
import type { WebhookEventType } from '../payments/stateMachine.js';
import type { WebhookDeps } from './deliveryDeps.js';
import { scheduleDelivery } from './delivery.js';
import { endpointDisabled, requireEndpoint, requireReceivingEndpoint, type Mode } from './endpoints.js';
import { REPLAY_WINDOW_MS } from './schedule.js';

const SECOND = 1000;

/** A delivery id the key cannot see answers like an address that names nothing: 404 `invalid_params`. */
export async function requireDelivery(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  deliveryId: string,
): Promise<DeliveryRow> {
  const delivery = await findVisibleDelivery(deps.db.knex, deliveryId, merchantId, mode === 'live');
  if (!delivery) throw new ApiError('invalid_params', `No webhook delivery with id ${deliveryId}.`, { status: 404 });
  return delivery;
}

/** The event a delivery carried: same id, same body (a test event's own, or the outbox row's). */
const eventOf = (d: DeliveryRow) => ({
  id: d.event_id,
  type: d.event_type,
  payment_id: d.payment_id,
  payload: d.payload,
});

/** `since` (milliseconds; the wire's Unix seconds × 1000) must not be in the future. */
function assertNotFuture(deps: WebhookDeps, since: number): void {
  if (since > deps.now())
    throw new ApiError('params_validation', 'since: must not be in the future.', { param: 'since' });
}

/** Sends a delivery's event again to the delivery's own endpoint; deliveries never move to another endpoint. */
export async function resendDelivery(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  deliveryId: string,
): Promise<DeliveryRow> {
  const original = await requireDelivery(deps, merchantId, mode, deliveryId);
  const endpoint = await findEndpoint(deps.db.knex, original.endpoint_id);
  if (!endpoint || endpoint.deleted_at !== null) {
    throw new ApiError(
      'invalid_state',
      `Delivery ${original.id} belongs to the deleted endpoint ${original.endpoint_id}; replay its event to the ` +
        'current endpoint instead.',
    );
  }
  if (!endpoint.enabled) throw endpointDisabled(endpoint);
  return deps.db.knex.transaction((trx) => scheduleDelivery(deps, trx, endpoint, eventOf(original), 'resend'));
}

/** Resends each event whose delivery to the current endpoint failed since `since` (ms), unless it got through since. */
export async function resendFailedSince(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  since: number,
): Promise<number> {
  assertNotFuture(deps, since);
  const endpoint = await requireReceivingEndpoint(deps, merchantId, mode);
  // The read and the writes share a transaction: on SQLite it excludes other writers, so two concurrent calls never
  // resend an event twice; on PostgreSQL the window shrinks to the transaction's length.
  return deps.db.knex.transaction(async (trx) => {
    const byEvent = new Map<string, DeliveryRow>();
    for (const d of await findResendableFailures(trx, endpoint.id, since)) byEvent.set(d.event_id, d);
    for (const d of byEvent.values()) await scheduleDelivery(deps, trx, endpoint, eventOf(d), 'resend');
    return byEvent.size;
  });
}

/**
 * Replays the events created since `since` (ms, at most 14 days back) of the endpoint's types that it has neither
 * received nor is receiving: never created for it, or every delivery of them failed. Oldest first.
 */
export async function replaySince(deps: WebhookDeps, merchantId: string, mode: Mode, since: number): Promise<number> {
  // Measured on the wire's whole seconds, so `now − 1209600` computed by a client in Unix seconds is accepted.
  const earliest = Math.floor(deps.now() / SECOND) * SECOND - REPLAY_WINDOW_MS;
  if (since < earliest) {
    throw new ApiError(
      'params_validation',
      `since: replay reaches back at most 14 days (since >= ${earliest / SECOND}).`,
      { param: 'since' },
    );
  }
  assertNotFuture(deps, since);
  const endpoint = await requireReceivingEndpoint(deps, merchantId, mode);
  return deps.db.knex.transaction(async (trx) => {
    const events = await findUnreceivedEvents(trx, {
      endpointId: endpoint.id,
      merchantId,
      live: mode === 'live',
      since,
      types: endpoint.event_types,
    });
    for (const e of events) await scheduleDelivery(deps, trx, endpoint, e, 'replay');
    return events.length;
  });
}

/**
 * The stage a test event of each type shows, with the version that stage has (contract: sendTestEvent), and whether
 * its sample carries a payment's processing (`paid`) and success sub-objects. Total over the contract's event types:
 * a new type does not compile until it says what its sample shows.
 */
const stageOfType: Record<
  WebhookEventType,
  { status: WebhookEvent['data']['status']; version: number; paid: boolean; succeeded: boolean }
> = {
  'payment.created': { status: 'requires_action', version: 0, paid: false, succeeded: false },
  'payment.processing': { status: 'processing', version: 1, paid: true, succeeded: false },
  'payment.succeeded': { status: 'succeeded', version: 2, paid: true, succeeded: true },
  'payment.failed': { status: 'failed', version: 1, paid: false, succeeded: false },
  'payment.expired': { status: 'expired', version: 1, paid: false, succeeded: false },
  'payment.cancelled': { status: 'cancelled', version: 1, paid: false, succeeded: false },
  'payment.settled': { status: 'succeeded', version: 3, paid: true, succeeded: true },
};

/**
 * A test event of any type, signed and delivered like a real one: sample data, `live: false`, and a fresh payment id
 * that names no payment, so receivers keeping a version per payment are not confused. It goes out whatever the
 * endpoint's event types, and has no outbox row, so it is never replayed.
 */
export async function sendTestEvent(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  type: WebhookEventType,
): Promise<{ delivery: DeliveryRow; event: WebhookEvent }> {
  const stage = stageOfType[type];
  if (!stage) throw new ApiError('params_validation', `type: unknown event type ${String(type)}.`, { param: 'type' });
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  if (!endpoint.enabled) throw endpointDisabled(endpoint);
  const merchant = await findMerchant(deps.db.knex, merchantId);
  if (!merchant) throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);

  const at = iso(deps.now());
  const paymentId = newId.payment();
  const amount = { unit: 'iso4217/USD', value: '1250' };
  const token = { unit: SAMPLE.unit, value: toSampleUnits(amount).toString() };
  const { paid, succeeded } = stage;
  const event: WebhookEvent = {
    id: newId.event(),
    type,
    api_version: WEBHOOK_API_VERSION,
    created_at: at,
    data: {
      payment_id: paymentId,
      merchant_id: merchantId,
      live: false,
      payment_state_version: stage.version,
      reference_id: 'test_event',
      status: stage.status,
      amount,
      created_at: at,
      expires_at: iso(deps.now() + 30 * 60 * SECOND),
      processing: paid
        ? {
            processing_at: at,
            option_amount: token,
            fee: sampleFee(merchant, token),
            settlement_amount: token,
            buyer_caip10: SAMPLE.buyer,
            chain_caip2: SAMPLE.chain,
          }
        : null,
      success: succeeded ? { succeeded_at: at, tx_id: `test:${paymentId}` } : null,
      failed: type === 'payment.failed' ? { failed_at: at, failure_reason: SAMPLE.failureReason } : null,
      cancelled:
        type === 'payment.cancelled' ? { cancelled_at: at, cancelled_by: 'merchant', cancellation_reason: null } : null,
      expired: type === 'payment.expired' ? { expired_at: at } : null,
      settled:
        type === 'payment.settled' ? { settled_at: at, settlement_amount: token, tx_id: `test:${paymentId}` } : null,
      refunded: null,
    },
  };
  const payload = JSON.stringify(event);
  const delivery = await deps.db.knex.transaction((trx) =>
    scheduleDelivery(deps, trx, endpoint, { id: event.id, type, payment_id: paymentId, payload }, 'test'),
  );
  return { delivery, event };
}
