/**
 * The point-of-sale screen's one state machine (CONVENTIONS.md §20): each state is one view. A final outcome is
 * entered only from a fresh answer about the sale on screen, so an answer about an earlier sale, or no answer at all
 * (offline), can never show "Paid" (docs/decisions.md §30.16).
 */
import type { PosPayment, PosTerminal } from './api.js';

export type Outcome = 'paid' | 'expired' | 'failed' | 'cancelled';

export type PosState =
  | { name: 'key'; refused: boolean }
  | { name: 'loading' }
  | { name: 'ring'; terminal: PosTerminal; failure: string | null }
  | { name: 'charging'; terminal: PosTerminal }
  | { name: 'paying'; terminal: PosTerminal; sale: PosPayment }
  | { name: 'done'; terminal: PosTerminal; sale: PosPayment; outcome: Outcome };

export type PosEvent =
  | { type: 'keyRefused' }
  | { type: 'keyEntered' }
  | { type: 'terminalLoaded'; terminal: PosTerminal }
  | { type: 'charge' }
  | { type: 'chargeFailed'; message: string }
  | { type: 'saleCreated'; sale: PosPayment }
  | { type: 'saleRead'; sale: PosPayment }
  | { type: 'newSale' };

const OUTCOMES: Partial<Record<PosPayment['status'], Outcome>> = {
  succeeded: 'paid',
  expired: 'expired',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function transition(state: PosState, event: PosEvent): PosState {
  switch (event.type) {
    case 'keyRefused':
      return { name: 'key', refused: true };
    case 'keyEntered':
      return { name: 'loading' };
    case 'terminalLoaded':
      return { name: 'ring', terminal: event.terminal, failure: null };
    case 'charge':
      return state.name === 'ring' ? { name: 'charging', terminal: state.terminal } : state;
    case 'chargeFailed':
      return state.name === 'charging' ? { name: 'ring', terminal: state.terminal, failure: event.message } : state;
    case 'saleCreated':
      return state.name === 'charging' ? settle({ name: 'paying', terminal: state.terminal, sale: event.sale }) : state;
    case 'saleRead':
      // Only an answer about the sale on screen moves it; a late answer about an earlier sale is dropped.
      if (state.name !== 'paying' || state.sale.paymentId !== event.sale.paymentId) return state;
      return settle({ ...state, sale: event.sale });
    case 'newSale':
      return state.name === 'done' || state.name === 'paying'
        ? { name: 'ring', terminal: state.terminal, failure: null }
        : state;
  }
}

function settle(state: Extract<PosState, { name: 'paying' }>): PosState {
  const outcome = OUTCOMES[state.sale.status];
  return outcome ? { name: 'done', terminal: state.terminal, sale: state.sale, outcome } : state;
}
