import type { components } from '../../../generated/dashboard.js';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEventType = components['schemas']['WebhookEventType'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookAttempt = components['schemas']['WebhookAttempt'];
export type WebhookDeliveryStatus = components['schemas']['WebhookDeliveryStatus'];

/** How far back a replay may go (the contract's limit). */
export const REPLAY_WINDOW_DAYS = 14;
