import type { components as gateway } from '../generated/gateway.js';
import type { components as merchant } from '../generated/merchant.js';

export type PaymentStatus = gateway['schemas']['PaymentStatus'];
export type MerchantPaymentStatus = merchant['schemas']['MerchantPaymentStatus'];
export type WebhookEventType = merchant['schemas']['WebhookEventType'];

/** The allowed transitions, as data (docs/decisions.md §1.2). Anything not listed is `invalid_state`. */
export const transitions: Record<PaymentStatus, readonly PaymentStatus[]> = {
  requires_action: ['processing', 'failed', 'expired', 'cancelled'],
  processing: ['succeeded', 'failed', 'expired'],
  succeeded: [],
  failed: [],
  expired: [],
  cancelled: [],
};

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return transitions[from].includes(to);
}

export function isFinal(status: PaymentStatus): boolean {
  return transitions[status].length === 0;
}

/** The merchant interface's names (docs/decisions.md §1.1): `pending` is `requires_action`, a cancel is `failed`. */
export const merchantStatusOf: Record<PaymentStatus, MerchantPaymentStatus> = {
  requires_action: 'pending',
  processing: 'processing',
  succeeded: 'succeeded',
  failed: 'failed',
  expired: 'expired',
  cancelled: 'failed',
};

export const eventTypeOf: Record<Exclude<PaymentStatus, 'requires_action'>, WebhookEventType> = {
  processing: 'payment.processing',
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  expired: 'payment.expired',
  cancelled: 'payment.cancelled',
};

/** Suggested polling interval while a payment is not final (docs/decisions.md §5). */
export const POLL_IN_MS = 2000;
