/**
 * The `failureCode` of a failed payment (WalletConnect Pay's `PaymentFailureCode`, docs/decisions.md §28). The
 * stored stage keeps a human-readable `failure_reason` only, so the one failure that has a code writes its reason
 * from this constant and is recognised by it; every other failure has no code (`null`).
 */
import type { components } from '../generated/gateway.js';
import type { PaymentRow } from '../db/queries/payments.js';

export type PaymentFailureCode = components['schemas']['PaymentFailureCode'];

export const SCREENING_FAILURE_REASON = 'The paying account did not pass screening.';

export function failureCodeOf(payment: PaymentRow): PaymentFailureCode | null {
  if (payment.status !== 'failed') return null;
  return payment.stages.failed?.failure_reason === SCREENING_FAILURE_REASON ? 'declined_user' : null;
}
