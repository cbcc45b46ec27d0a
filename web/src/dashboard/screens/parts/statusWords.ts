/**
 * A payment's status in the merchant's words (issue 31 finding 16): the contract's ids (`requires_action`,
 * `processing`) are for code; a merchant reads what the payment is waiting for. The filter keeps the ids as values.
 */
const WORDS: Record<string, string> = {
  requires_action: 'Waiting for payment',
  processing: 'Confirming',
  succeeded: 'Paid',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

export function paymentStatusWord(status: string): string {
  return WORDS[status] ?? status.replace(/_/g, ' ');
}
