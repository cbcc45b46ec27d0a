import type { components } from '../../../../../server/src/generated/dashboard';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEventType = components['schemas']['WebhookEventType'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookAttempt = components['schemas']['WebhookAttempt'];
export type WebhookDeliveryStatus = components['schemas']['WebhookDeliveryStatus'];

/** Every event type, in the contract's order (a type-only import keeps the server's code out of the bundle). */
export const EVENT_TYPES = [
  'payment.created',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.expired',
  'payment.cancelled',
  'payment.settled',
] as const satisfies readonly WebhookEventType[];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const satisfies readonly WebhookDeliveryStatus[];

/** How far back a replay may go (the contract's limit). */
export const REPLAY_WINDOW_DAYS = 14;
