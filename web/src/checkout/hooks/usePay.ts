/**
 * Paying one option with the wallet that holds its account: switching the wallet's network, the merchant's data form
 * when the option asks for it, signing, and the gateway's confirm; a confirm that failed after the wallet signed is
 * sent again, never signed again. Cancelling is here too: it is the buyer's other way out of the open view.
 */
import { useCallback, useState, type Dispatch, type StateUpdater } from 'preact/hooks';
import {
  collectDataOf,
  PayError,
  PaygateError,
  type ConfirmPaymentRequest,
  type PayableOption,
  type PaygateWallet,
  type Signers,
} from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain } from '../../pageConfig.js';
import type { CheckoutEvent, View } from '../checkoutMachine.js';
import { paymentEnded, reasonOf } from '../failures.js';
import { chainOfAccount } from '../options.js';
import { CollectClosed, CollectError, type CollectRequest } from '../views/CollectDialog.js';
import { isRejection, switchChain } from '../wallets.js';
import { POLL_MS, type ShowStatus } from './usePayment.js';
import type { Connected } from './useWallets.js';

export function usePay(deps: {
  gateway: PaygateWallet;
  paymentId: string | null;
  chains: CheckoutChain[];
  connected: Connected[];
  t: Translate;
  announce: (text: string) => void;
  showStatus: ShowStatus;
  dispatch: (event: CheckoutEvent) => void;
  /** The view now (a ref: a pay started in the open view ends in whatever view the page has by then). */
  viewRef: { readonly current: View };
  loadOptions: () => Promise<void>;
  setBusy: Dispatch<StateUpdater<string | null>>;
}) {
  const { gateway, paymentId, chains, connected, t, announce, showStatus, dispatch, viewRef, loadOptions, setBusy } =
    deps;
  const [collect, setCollect] = useState<CollectRequest | null>(null);
  // The option being paid: its progress is shown on it (§26.8), not somewhere else on the page.
  const [chosen, setChosen] = useState<string | null>(null);
  const closeCollect = useCallback(() => setCollect(null), []);
  const setMessage = (text: string | null) => dispatch({ type: 'message', message: text });

  const askForData = (option: PayableOption): Promise<void> | null => {
    const form = collectDataOf(option);
    if (!form) return null;
    return new Promise((resolve, reject) => setCollect({ url: form.url, resolve, reject }));
  };

  const pay = async (option: PayableOption) => {
    if (!paymentId) return;
    setMessage(null);
    const caip2 = chainOfAccount(option.account);
    const holder = connected.find(
      ({ wallet, address }) =>
        option.account.toLowerCase().endsWith(`:${address.toLowerCase()}`) &&
        (wallet.kind === 'evm') === caip2.startsWith('eip155:'),
    );
    if (!holder) return;
    setChosen(option.id);
    const signers: Signers =
      holder.wallet.kind === 'evm' ? { eip155: holder.wallet.provider } : { solana: holder.wallet.wallet };
    const chain = chains.find((c) => c.caip2 === caip2);
    let txId: string | null = null;
    let signed: ConfirmPaymentRequest | null = null;
    try {
      if (holder.wallet.kind === 'evm') {
        setBusy(t('pay.switching', { network: chain?.name ?? caip2 }));
        const switched = await switchChain(
          holder.wallet.provider,
          Number(caip2.split(':')[1]),
          (chain?.addChain as Record<string, unknown> | null) ?? null,
        );
        if (switched === 'unknown_chain') {
          setBusy(null);
          setMessage(t('pay.addNetwork', { network: chain?.name ?? caip2 }));
          return;
        }
      }
      const collecting = askForData(option);
      if (collecting) {
        setBusy(null);
        await collecting;
      }
      setBusy(t('pay.inWallet'));
      announce(t('pay.inWallet'));
      const final = await gateway.pay(option, signers, {
        collectedOnWeb: collecting !== null,
        maxPollMs: POLL_MS,
        onSigned: ({ request }) => {
          signed = request;
          const sent = option.actions.findIndex(
            (a) => a.type === 'walletRpc' && a.data.method === 'eth_sendTransaction',
          );
          const result = sent >= 0 ? request.results?.[sent] : undefined;
          const value = typeof result === 'string' ? result : result?.data[0];
          txId = typeof value === 'string' ? value : null;
          showStatus(
            { status: 'processing', isFinal: false, pollInMs: null, info: null, failureCode: null },
            true,
            txId,
            caip2,
          );
        },
      });
      setBusy(null);
      showStatus(final, true, txId, caip2);
    } catch (error) {
      setBusy(null);
      setCollect(null);
      if (signed && !paymentEnded(error)) {
        // The wallet has acted (for a transfer, funds have moved): never sign again, confirm again.
        dispatch({
          type: 'unconfirmed',
          txId,
          caip2,
          request: signed,
          error: t('confirm.failed', { reason: reasonOf(error) }),
        });
        return;
      }
      if (error instanceof CollectError) {
        dispatch({ type: 'message', message: t('collect.error', { reason: error.message }), sticky: true });
        return;
      }
      if (viewRef.current.kind !== 'open') return;
      if (error instanceof CollectClosed) setMessage(null);
      else if (isRejection(error)) setMessage(t('pay.rejected'));
      else if (error instanceof PayError && error.reason === 'quote_changed') setMessage(t('pay.quoteChanged'));
      else if (paymentEnded(error)) {
        showStatus(await gateway.getPaymentStatus(paymentId), true);
      } else setMessage(t('pay.failedToStart', { reason: reasonOf(error) }));
      void loadOptions();
    }
  };

  const confirmAgain = async (request: ConfirmPaymentRequest) => {
    const view = viewRef.current;
    if (!paymentId || view.kind !== 'processing') return;
    const { txId, caip2 } = view;
    try {
      const answer = await gateway.confirmPayment(paymentId, request);
      dispatch({ type: 'confirmed' });
      showStatus(answer, true, txId, caip2);
    } catch (error) {
      const refused =
        error instanceof PaygateError && error.status >= 400 && error.status < 500 && error.status !== 429;
      if (refused && !paymentEnded(error)) {
        // The gateway will never accept this confirm: back to the options, saying why.
        dispatch({ type: 'open', message: t('pay.failedToStart', { reason: reasonOf(error) }) });
        void loadOptions();
      } else if (refused) {
        showStatus(await gateway.getPaymentStatus(paymentId), true);
      } else {
        dispatch({
          type: 'unconfirmed',
          txId,
          caip2,
          request,
          error: t('confirm.failed', { reason: reasonOf(error) }),
        });
      }
    }
  };

  const cancel = async () => {
    if (!paymentId) return;
    try {
      showStatus(await gateway.cancelPayment(paymentId), true);
    } catch (error) {
      setMessage(t('cancel.failed', { reason: reasonOf(error) }));
    }
  };

  return { pay, confirmAgain, cancel, collect, setCollect, closeCollect, chosen };
}
