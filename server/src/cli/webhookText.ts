/** How `paygate admin webhook-endpoint` shows endpoints and deliveries to a person (without `--json`). */
import type { WebhookDeliveryJson, WebhookEndpointJson } from '../webhooks/wire.js';
import { table } from './common.js';

/** Unix seconds as ISO 8601; empty for none. */
export const time = (s: number | null) => (s === null ? '' : new Date(s * 1000).toISOString());

export function describeEndpoint(e: WebhookEndpointJson): string {
  const rows: [string, string][] = [
    ['Endpoint', `${e.id} (${e.mode})`],
    ['URL', e.url],
    ['Event types', e.eventTypes.join(', ')],
    ['Enabled', e.enabled ? 'yes' : `no (${e.disabledReason ?? 'disabled'})`],
    ['Created', time(e.createdAt)],
    ['Secret rotated', time(e.secretRotatedAt) || 'never'],
  ];
  if (e.previousSecretExpiresAt !== null) rows.push(['Previous secret signs until', time(e.previousSecretExpiresAt)]);
  if (e.failingSince !== null) rows.push(['Failing since', time(e.failingSince)]);
  return rows.map(([k, v]) => `${`${k}:`.padEnd(29)}${v}`).join('\n') + '\n';
}

export function describeDelivery(d: WebhookDeliveryJson): string {
  const head =
    `Delivery ${d.id} (${d.trigger}) of ${d.eventType} ${d.eventId} for payment ${d.paymentId}\n` +
    `Endpoint ${d.endpointId}, ${d.status}, ${d.attemptCount} attempt(s), created ${time(d.createdAt)}` +
    (d.nextAttemptAt === null ? '' : `, next attempt ${time(d.nextAttemptAt)}`) +
    '\n';
  const attempts = d.attempts ?? [];
  if (attempts.length === 0) return head;
  const rows = attempts.map((a) => [
    String(a.attempt),
    time(a.startedAt),
    a.status === null ? '-' : String(a.status),
    `${a.latencyMs} ms`,
    a.outcome,
    a.error ?? '',
  ]);
  return `${head}\n${table(['#', 'STARTED', 'HTTP', 'LATENCY', 'OUTCOME', 'ERROR'], rows)}`;
}
