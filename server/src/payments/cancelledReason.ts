/**
 * WalletConnect Pay's `cancelledReason` for who cancelled a payment (the stage's `cancelled_by`), which both cancel
 * answers in its shape carry (docs/decisions.md §28). A value added to `cancelled_by` later reads as the system.
 */
const CANCELLED_REASON: Record<string, string> = {
  buyer: 'cancelled_by_user',
  merchant: 'cancelled_by_merchant',
  system: 'cancelled_by_system',
};

export function cancelledReason(cancelledBy: unknown): string {
  return CANCELLED_REASON[String(cancelledBy)] ?? 'cancelled_by_system';
}
