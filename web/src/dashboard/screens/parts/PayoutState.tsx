import { StatusBadge } from '../../../kit/Badge.js';
import { payoutStateWord } from './statusWords.js';

/** The kit's tone of each payout state: a final payout is money that arrived, a sent one is still on its way. */
const TONE: Record<string, string> = { planned: 'pending', sent: 'processing', final: 'settled', failed: 'failed' };

/** A payout's state as a badge in the merchant's words (Balances' list and the payout's page). */
export function PayoutState(props: { state: string }) {
  return <StatusBadge status={TONE[props.state] ?? props.state} label={payoutStateWord(props.state)} />;
}
