/**
 * The checkout's states as one pure reducer (convention 20, issue 31): which view the page shows and the one message
 * beside it. Effects (gateway calls, wallets, announcements, redirects) stay in the component; every change of view
 * goes through `checkoutReducer`, so the rules below are unit-tested without a browser
 * (test/checkout/checkout.machine.transitions.test.ts).
 */
import type { ConfirmPaymentRequest, PaymentStatusResponse } from '@paygate/sdk-wallet';

export type FinalStatus = 'succeeded' | 'failed' | 'expired' | 'cancelled';
export type ResultInfo = NonNullable<PaymentStatusResponse['info']>;

export type View =
  | { kind: 'loading' }
  | { kind: 'notFound' }
  | { kind: 'loadFailed' }
  | { kind: 'open' }
  | {
      kind: 'processing';
      txId: string | null;
      caip2: string | null;
      /** A signed confirm the gateway has not accepted yet (it failed): kept to send again, never signed again. */
      unconfirmed: { request: ConfirmPaymentRequest; error: string } | null;
    }
  | { kind: 'final'; status: FinalStatus; result: ResultInfo | null; seenAt: number | null; live: boolean };

export interface CheckoutState {
  view: View;
  /** An error or notice of the open view (a decline, a failed cancel); not carried into a final view unless sticky. */
  message: string | null;
  /** The message explains how the payment ended (the data form refused because it expired): the final view keeps it. */
  sticky?: boolean;
}

export type CheckoutEvent =
  | { type: 'load' }
  | { type: 'notFound' }
  | { type: 'loadFailed' }
  | { type: 'open'; message?: string | null }
  | {
      type: 'status';
      answer: Pick<PaymentStatusResponse, 'status' | 'info'>;
      /** When this visit saw it happen (null: it had ended before the page opened). */
      seenAt: number | null;
      txId?: string | null;
      caip2?: string | null;
    }
  | { type: 'unconfirmed'; txId: string | null; caip2: string | null; request: ConfirmPaymentRequest; error: string }
  | { type: 'confirmed' }
  | { type: 'message'; message: string | null; sticky?: boolean };

export const FINAL_STATUSES: readonly string[] = ['succeeded', 'failed', 'expired', 'cancelled'];

export function initialState(paymentId: string | null | undefined): CheckoutState {
  return { view: paymentId ? { kind: 'loading' } : { kind: 'notFound' }, message: null };
}

export function isFinalStatus(status: string): status is FinalStatus {
  return FINAL_STATUSES.includes(status);
}

export function checkoutReducer(state: CheckoutState, event: CheckoutEvent): CheckoutState {
  const { view } = state;
  switch (event.type) {
    case 'load':
      return { view: { kind: 'loading' }, message: null };
    case 'notFound':
      return { view: { kind: 'notFound' }, message: null };
    case 'loadFailed':
      return { view: { kind: 'loadFailed' }, message: null };
    case 'open':
      // A payment that has ended never opens again (a late answer of an older request).
      if (view.kind === 'final') return state;
      return { view: { kind: 'open' }, message: event.message ?? state.message };
    case 'status': {
      const { status, info } = event.answer;
      if (isFinalStatus(status)) {
        // The first final answer wins: a later poll must not change what the buyer was shown (nor its time).
        if (view.kind === 'final') return state;
        const live = event.seenAt !== null;
        const ended: View = { kind: 'final', status, result: info ?? null, seenAt: event.seenAt, live };
        return state.sticky ? { ...state, view: ended } : { view: ended, message: null };
      }
      if (status === 'processing') {
        if (view.kind === 'processing' || view.kind === 'final') return state;
        return {
          view: { kind: 'processing', txId: event.txId ?? null, caip2: event.caip2 ?? null, unconfirmed: null },
          message: state.message,
        };
      }
      return state;
    }
    case 'unconfirmed':
      if (view.kind === 'final') return state;
      return {
        view: {
          kind: 'processing',
          txId: event.txId,
          caip2: event.caip2,
          unconfirmed: { request: event.request, error: event.error },
        },
        message: state.message,
      };
    case 'confirmed':
      if (view.kind !== 'processing') return state;
      return { ...state, view: { ...view, unconfirmed: null } };
    case 'message':
      return { ...state, message: event.message, sticky: event.sticky === true };
  }
}

/** Whether the page shows the message: beside the open view, and on a final view only a sticky one. */
export function showsMessage(state: CheckoutState): boolean {
  return (
    state.message !== null && (state.view.kind === 'open' || (state.view.kind === 'final' && state.sticky === true))
  );
}
