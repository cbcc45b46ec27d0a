import type { components } from '../generated/merchant.js';
import type { PaymentRow } from '../db/queries/payments.js';
import type { SecretBox } from '../crypto/secretBox.js';
import { detailsOf } from './details.js';

export type PaymentSnapshot = components['schemas']['PaymentSnapshot'];
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** The payload contract's version; payloads change additively within it (docs/decisions.md §3). */
export const WEBHOOK_API_VERSION = '2026-02-18';

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The full snapshot that webhooks carry and `GET /v1/merchant/payment/{id}` returns: never a delta. `box` opens the
 * buyer, sealed at rest (docs/decisions.md §30.3).
 */
export function toSnapshot(row: PaymentRow, box: Pick<SecretBox, 'open'>): PaymentSnapshot {
  const details = detailsOf(box, {
    id: row.id,
    description: row.description ?? null,
    line_items: row.line_items ?? null,
    metadata: row.metadata ?? null,
    buyer_sealed: row.buyer_sealed ?? null,
  });
  return {
    payment_id: row.id,
    merchant_id: row.merchant_id,
    live: row.live,
    payment_state_version: row.state_version,
    reference_id: row.reference_id,
    link_id: row.link_id ?? null,
    status: row.status,
    amount: { unit: row.amount_unit, value: row.amount_value },
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    processing: row.stages.processing,
    success: row.stages.success,
    failed: row.stages.failed,
    cancelled: row.stages.cancelled,
    expired: row.stages.expired,
    // Settled stages stored before `tx_id` existed lack it; the contract reads them as null.
    settled: row.stages.settled && { ...row.stages.settled, tx_id: row.stages.settled.tx_id ?? null },
    refunded: row.stages.refunded,
    description: details.description,
    line_items: details.lineItems,
    buyer: details.buyer,
    metadata: details.metadata,
  };
}
