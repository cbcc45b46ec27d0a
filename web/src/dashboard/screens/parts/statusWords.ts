/**
 * Statuses in the merchant's words (issue 31 finding 16, docs/decisions.md §26.25): the contract's ids
 * (`requires_action`, `pending`, `final`) are for code; a merchant reads what the thing is waiting for or what became
 * of it. Filters keep the ids as their values (and in the URL); only what is shown is a word.
 */
const PAYMENT: Record<string, string> = {
  requires_action: 'Waiting for payment',
  processing: 'Confirming',
  succeeded: 'Paid',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

/** A payout's state, in the words payment providers use for payouts (Stripe: pending, in transit, paid, failed). */
const PAYOUT: Record<string, string> = {
  planned: 'Pending',
  sent: 'In transit',
  final: 'Paid out',
  failed: 'Failed',
};

/** An on-chain refund's state: what the buyer or the chain is at, and whether the money left. */
const REFUND: Record<string, string> = {
  awaiting_claim: 'Waiting for the buyer to claim',
  planned: 'Queued',
  sent: 'Sent, not final yet',
  final: 'Refunded',
  failed: 'Failed',
  expired: 'Link expired, not sent',
  cancelled: 'Link cancelled, not sent',
};

/** What made a delivery: the event itself, or something a person asked for. */
const TRIGGER: Record<string, string> = {
  event: 'Event',
  resend: 'Resent',
  replay: 'Replayed',
  test: 'Test event',
};

const word = (words: Record<string, string>) => (id: string) => words[id] ?? id.replace(/_/g, ' ');

export const paymentStatusWord = word(PAYMENT);
export const payoutStateWord = word(PAYOUT);
export const refundStateWord = word(REFUND);

/**
 * A webhook delivery's status. `pending` is two things to a merchant: not tried yet ("Sending"), or refused and due
 * again on the retry schedule ("Retrying").
 */
export function deliveryStatusWord(delivery: { status: string; attemptCount: number }): string {
  if (delivery.status === 'pending') return delivery.attemptCount > 0 ? 'Retrying' : 'Sending';
  return delivery.status === 'delivered' ? 'Delivered' : word({ failed: 'Failed' })(delivery.status);
}
export const deliveryTriggerWord = word(TRIGGER);

/** The status filter's words: its `pending` choice finds both the deliveries not tried yet and those retrying. */
export const deliveryStatusFilterWord = word({
  pending: 'Sending or retrying',
  delivered: 'Delivered',
  failed: 'Failed',
});
