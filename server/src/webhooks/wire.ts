/**
 * Endpoints, deliveries and attempts as the dashboard contract shows them (the API and `paygate admin
 * webhook-endpoint --json` alike). The database keeps milliseconds; every time on the wire is whole Unix seconds,
 * and an attempt's `startedAt` is exactly the `webhook-timestamp` it carried.
 */
import type { AttemptRow, DeliveryRow, EndpointRow } from '../db/queries/webhooks.js';
import type { components } from '../generated/dashboard.js';

export type WebhookEndpointJson = components['schemas']['WebhookEndpoint'];
export type WebhookDeliveryJson = components['schemas']['WebhookDelivery'];
export type WebhookAttemptJson = components['schemas']['WebhookAttempt'];

export const unixSeconds = (ms: number) => Math.floor(ms / 1000);
const seconds = (ms: number | null) => (ms === null ? null : unixSeconds(ms));

/** `now` decides whether the previous secret still signs; after its 24 hours the contract shows null. */
export function endpointJson(e: EndpointRow, now: number): WebhookEndpointJson {
  const previousValid = e.previous_secret_sealed !== null && (e.previous_secret_expires_at ?? 0) > now;
  return {
    id: e.id,
    url: e.url,
    eventTypes: e.event_types as WebhookEndpointJson['eventTypes'],
    enabled: e.enabled,
    disabledReason: e.enabled ? null : e.disabled_reason,
    mode: e.mode,
    createdAt: unixSeconds(e.created_at),
    // `secret_rotated_at` is when the current secret was set; only an endpoint that had a previous secret rotated.
    secretRotatedAt: e.previous_secret_sealed === null ? null : unixSeconds(e.secret_rotated_at),
    previousSecretExpiresAt: previousValid ? seconds(e.previous_secret_expires_at) : null,
    failingSince: seconds(e.failing_since),
  };
}

export function attemptJson(a: AttemptRow): WebhookAttemptJson {
  return {
    attempt: a.attempt,
    startedAt: unixSeconds(a.started_at),
    status: a.status,
    latencyMs: a.latency_ms,
    error: a.error,
    responseBody: a.response_body,
    outcome: a.delivered ? 'delivered' : 'failed',
  };
}

/** With `attempts` for a single delivery; lists leave them out, as the contract says. */
export function deliveryJson(d: DeliveryRow, attempts?: AttemptRow[]): WebhookDeliveryJson {
  return {
    id: d.id,
    eventId: d.event_id,
    eventType: d.event_type as WebhookDeliveryJson['eventType'],
    paymentId: d.payment_id,
    endpointId: d.endpoint_id,
    trigger: d.trigger,
    status: d.status,
    attemptCount: d.attempt_count,
    nextAttemptAt: d.status === 'pending' ? seconds(d.next_attempt_at) : null,
    createdAt: unixSeconds(d.created_at),
    deliveredAt: seconds(d.delivered_at),
    attemptsPruned: (d.attempts_pruned_at ?? null) !== null,
    ...(attempts ? { attempts: attempts.map(attemptJson) } : {}),
  };
}
