/**
 * The stage sub-objects of a payment, one type per stage, taken from the merchant contract's `PaymentSnapshot`: a
 * writer that misspells, omits or invents a field fails the type check instead of a response validation (or a
 * merchant's parser). They live beside the payment rows (db/ depends on no domain folder) and every writer in
 * payments/ and checkout/ builds its stage against them.
 */
import type { components } from '../../generated/merchant.js';

type Snapshot = components['schemas']['PaymentSnapshot'];

/** The stages, each stored in its own JSON column of `payments`. */
export const stageColumns = ['processing', 'success', 'failed', 'cancelled', 'expired', 'settled', 'refunded'] as const;
export type StageColumn = (typeof stageColumns)[number];

export type ProcessingStage = NonNullable<Snapshot['processing']>;
export type SuccessStage = NonNullable<Snapshot['success']>;
export type FailedStage = NonNullable<Snapshot['failed']>;
export type CancelledStage = NonNullable<Snapshot['cancelled']>;
export type ExpiredStage = NonNullable<Snapshot['expired']>;
export type SettledStage = NonNullable<Snapshot['settled']>;
export type RefundedStage = NonNullable<Snapshot['refunded']>;

/** Every stage of a payment, `null` until it happens: the snapshot's own stage keys. */
export type PaymentStages = { [S in StageColumn]: Snapshot[S] };

/** The stages one change sets; the others keep their stored value. */
export type StageChange = { [S in StageColumn]?: NonNullable<Snapshot[S]> };

/** A new payment has reached no stage. */
export function noStages(): PaymentStages {
  return {
    processing: null,
    success: null,
    failed: null,
    cancelled: null,
    expired: null,
    settled: null,
    refunded: null,
  };
}
