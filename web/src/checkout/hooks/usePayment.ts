/**
 * The payment as the page follows it: the first read, the view (through the reducer), the announcements of a change
 * of view, and a status long poll while the payment is open or processing, so a payment paid from a phone, cancelled
 * by the merchant or expired shows up here without a reload.
 */
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import { PaygateError, type PaygateWallet, type PaymentInfo, type PaymentStatusResponse } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import { checkoutReducer, initialState, isFinalStatus } from '../checkoutMachine.js';
import { pause } from '../failures.js';

export const POLL_MS = 20_000;

export type ShowStatus = (
  answer: PaymentStatusResponse,
  live: boolean,
  txId?: string | null,
  caip2?: string | null,
) => void;

export function usePayment(
  gateway: PaygateWallet,
  paymentId: string | null,
  t: Translate,
  now: () => number,
  /** The gateway's read of an open payment, embedded in the page (§26.15): no first request to wait for. */
  embedded: PaymentInfo | null,
) {
  const [state, dispatch] = useReducer(checkoutReducer, paymentId, (id) =>
    embedded?.status === 'requires_action' ? { view: { kind: 'open' as const }, message: null } : initialState(id),
  );
  const [info, setInfo] = useState<PaymentInfo | null>(embedded);
  const [announcement, setAnnouncement] = useState('');
  const viewRef = useRef(state.view);
  viewRef.current = state.view;

  // A live region reads a change only: the same text again (a second attempt) is cleared first, then set.
  const announce = useCallback((text: string) => {
    setAnnouncement('');
    requestAnimationFrame(() => setAnnouncement(text));
  }, []);

  /** Moves to the view of a status answer; `live` when it happened during this visit (only then do we redirect). */
  const showStatus: ShowStatus = useCallback(
    (answer, live, txId = null, caip2 = null) => {
      // The reducer decides the view (and drops a stale message on a final one); the announcement follows a change.
      const before = viewRef.current.kind;
      dispatch({ type: 'status', answer, seenAt: live ? now() : null, txId, caip2 });
      if (isFinalStatus(answer.status) && before !== 'final') announce(t(`${answer.status}.title`));
      else if (answer.status === 'processing' && before !== 'processing' && before !== 'final') {
        announce(t('processing.title'));
      }
    },
    [announce, now, t],
  );

  const load = useCallback(async () => {
    if (!paymentId) return;
    dispatch({ type: 'load' });
    try {
      const payment = await gateway.getPayment(paymentId);
      setInfo(payment);
      document.title = t('page.title', { merchant: payment.merchant.name });
      if (payment.status === 'requires_action') dispatch({ type: 'open' });
      else showStatus(await gateway.getPaymentStatus(paymentId), false);
    } catch (error) {
      if (error instanceof PaygateError && error.code === 'payment_not_found') dispatch({ type: 'notFound' });
      else dispatch({ type: 'loadFailed' });
    }
  }, [gateway, paymentId, showStatus, t]);

  // Before the first paint, not after it: the payment read is what the buyer waits for. An embedded read is the
  // same answer: nothing to wait for, and the status poll follows the payment from here.
  const embeddedOpen = useRef(embedded?.status === 'requires_action');
  useLayoutEffect(() => {
    if (embeddedOpen.current) {
      embeddedOpen.current = false;
      document.title = t('page.title', { merchant: embedded!.merchant.name });
      return;
    }
    void load();
  }, [load]);

  const countdownEnded = useCallback(() => {
    if (!paymentId) return;
    void gateway
      .getPaymentStatus(paymentId)
      .then((answer) => showStatus(answer, true))
      .catch(() => undefined);
  }, [gateway, paymentId, showStatus]);

  return { state, dispatch, viewRef, info, announcement, announce, showStatus, load, countdownEnded };
}

/**
 * Follows the payment's status (long polling) while `following`, whatever the buyer does here; `onAnswer` is told of
 * every answer (the deposit panel reads what was received again on each).
 */
export function useStatusPoll(
  gateway: PaygateWallet,
  paymentId: string | null,
  following: boolean,
  showStatus: ShowStatus,
): number {
  const [answers, setAnswers] = useState(0);
  useEffect(() => {
    if (!following || !paymentId) return;
    const controller = new AbortController();
    void (async () => {
      while (!controller.signal.aborted) {
        try {
          const answer = await gateway.getPaymentStatus(paymentId, { maxPollMs: POLL_MS, signal: controller.signal });
          if (controller.signal.aborted) return;
          setAnswers((n) => n + 1);
          if (answer.status !== 'requires_action') showStatus(answer, true);
          if (answer.isFinal) return;
          if (answer.status === 'requires_action' && answer.pollInMs) await pause(answer.pollInMs, controller.signal);
        } catch {
          if (controller.signal.aborted) return;
          await pause(2000, controller.signal);
        }
      }
    })();
    return () => controller.abort();
  }, [following, gateway, paymentId, showStatus]);
  return answers;
}
