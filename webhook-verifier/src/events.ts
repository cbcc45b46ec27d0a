import type { components } from './generated/merchant.js';

type Schemas = components['schemas'];

/** The signed envelope POSTed to a merchant endpoint. */
export type WebhookEvent = Schemas['WebhookEvent'];
/** `data` of every event: the full payment snapshot at the time of the event, never a delta. */
export type PaymentSnapshot = Schemas['PaymentSnapshot'];
// Derived from the envelope rather than named schemas so that only the two names above tie this file to the contract.
export type WebhookEventType = WebhookEvent['type'];
export type PaymentStatus = PaymentSnapshot['status'];
