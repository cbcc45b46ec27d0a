/**
 * The ways the connected accounts can pay (the gateway's options), asked again when the accounts change and renewed
 * when a quote goes stale, before the buyer can try to pay it.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { PayableOption, PaygateWallet } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import { paymentEnded, reasonOf } from '../failures.js';
import type { ShowStatus } from './usePayment.js';

export type OptionsState =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'ready'; options: PayableOption[]; unavailable: string[] }
  | { kind: 'failed'; message: string };

export function useOptions(deps: {
  gateway: PaygateWallet;
  paymentId: string | null;
  accounts: string[];
  t: Translate;
  now: () => number;
  announce: (text: string) => void;
  showStatus: ShowStatus;
  /** While the buyer pays, a stale quote is left alone: the payment itself renews it (`quote_changed`). */
  busy: boolean;
}) {
  const { gateway, paymentId, accounts, t, now, announce, showStatus, busy } = deps;
  const [options, setOptions] = useState<OptionsState>({ kind: 'idle' });
  const optionsRound = useRef(0);

  const loadOptions = useCallback(
    async (refresh: string[] = []) => {
      if (!paymentId || accounts.length === 0) return;
      // Only the latest request's answer counts: an older one (fewer accounts) may arrive last.
      const round = ++optionsRound.current;
      if (refresh.length === 0) setOptions({ kind: 'loading' });
      try {
        const answer = await gateway.getOptions({ paymentId, accounts, refresh });
        if (round !== optionsRound.current) return;
        setOptions({ kind: 'ready', options: answer.options, unavailable: answer.unavailable.map((u) => u.chain) });
        if (refresh.length > 0) announce(t('options.refreshing'));
      } catch (error) {
        if (paymentEnded(error)) {
          showStatus(await gateway.getPaymentStatus(paymentId), true);
        } else if (round === optionsRound.current) setOptions({ kind: 'failed', message: reasonOf(error) });
      }
    },
    [accounts, announce, gateway, paymentId, showStatus, t],
  );

  useEffect(() => void loadOptions(), [loadOptions]);

  useEffect(() => {
    if (options.kind !== 'ready' || busy) return;
    const expiries = options.options.map((o) => o.expiresAt).filter((e): e is number => typeof e === 'number');
    if (expiries.length === 0) return;
    const wait = Math.max(0, Math.min(...expiries) * 1000 - now());
    const timer = setTimeout(() => {
      const stale = options.options.filter((o) => typeof o.expiresAt === 'number' && o.expiresAt * 1000 <= now());
      void loadOptions(stale.map((o) => o.id));
    }, wait + 250);
    return () => clearTimeout(timer);
  }, [options, busy, loadOptions, now]);

  return { options, loadOptions };
}
