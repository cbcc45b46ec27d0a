/**
 * The hosted checkout: one payment, from "connect a wallet" to its final view. The gateway API is the only source
 * of amounts, addresses and statuses. The view is the reducer's (checkoutMachine.ts); the hooks hold the effects
 * (hooks/: the payment and its status poll, the wallets, the options, paying); views/ draws each part.
 */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { translator } from '../i18n.js';
import type { CheckoutPageConfig, Language } from '../pageConfig.js';
import { gatewayFor } from './api.js';
import { showsMessage } from './checkoutMachine.js';
import { serverClock } from './clock.js';
import { useOptions } from './hooks/useOptions.js';
import { usePhone } from './hooks/usePhone.js';
import { usePay } from './hooks/usePay.js';
import { usePayment, useStatusPoll } from './hooks/usePayment.js';
import { useWallets } from './hooks/useWallets.js';
import { Accepted } from './views/Accepted.js';
import { Cancel } from './views/Cancel.js';
import { CollectClosed, CollectDialog } from './views/CollectDialog.js';
import { depositKey, DepositPanel, type DepositOption } from './views/DepositPanel.js';
import { Final } from './views/Final.js';
import { Languages, NotFound } from './views/Languages.js';
import { Options } from './views/Options.js';
import { PhonePanel } from './views/PhonePanel.js';
import { Processing } from './views/Processing.js';
import { Summary } from './views/Summary.js';
import { Wallets } from './views/Wallets.js';

export function App(props: { config: CheckoutPageConfig }) {
  const { config } = props;
  const lang = config.lang as Language;
  const t = useMemo(() => translator(lang), [lang]);
  const now = useMemo(() => serverClock(config.serverTime), [config]);
  // A page without a payment (not found) has no app id and never calls the gateway.
  const gateway = useMemo(() => gatewayFor(config.appId ?? 'app_test_none', now), [config, now]);
  const paymentId = config.paymentId ?? null;
  // The hosted checkout's app id carries the payment's mode (`app_<mode>_…`, hostedCheckout/appIds.ts), as Stripe
  // marks every view of a test payment.
  const testMode = paymentId !== null && (config.appId ?? '').startsWith('app_test_');

  const payment = usePayment(gateway, paymentId, t, now, config.payment ?? null);
  const { state, dispatch, info, announce, showStatus } = payment;
  const { view, message } = state;
  const setMessage = useCallback((text: string | null) => dispatch({ type: 'message', message: text }), [dispatch]);
  const [busy, setBusy] = useState<string | null>(null);
  const [deposits, setDeposits] = useState<DepositOption[]>([]);
  // Money at a deposit address: Cancel is refused by the gateway from then on (§26.2), so it is not offered, and
  // a final view says what arrived and what happens to it.
  const received = deposits.filter((d) => d.received.value !== '0');
  const phone = usePhone();

  const { wallets, connected, accounts, connect } = useWallets(config.chains, t, announce, setMessage);
  const { options, loadOptions } = useOptions({
    gateway,
    paymentId,
    accounts,
    t,
    now,
    announce,
    showStatus,
    busy: busy !== null,
  });
  const { pay, confirmAgain, cancel, collect, setCollect, closeCollect, chosen } = usePay({
    gateway,
    paymentId,
    chains: config.chains,
    connected,
    t,
    announce,
    showStatus,
    dispatch,
    viewRef: payment.viewRef,
    loadOptions,
    setBusy,
  });

  // Paused while the buyer fills the data-collection form: its answer (IC_COMPLETE, or IC_ERROR saying why, e.g. the
  // payment expired meanwhile) decides what comes next, rather than a view change under the buyer's hands.
  const following = (view.kind === 'open' && collect === null) || view.kind === 'processing';
  const statusAnswers = useStatusPoll(gateway, paymentId, following, showStatus);

  // The way to pay the buyer chose (a deposit entry or the phone panel), the one place with a QR code (§26.9).
  // Until the buyer chooses: the first deposit entry when there are some, else the phone panel when this browser has
  // no wallet.
  const [chosenWay, setChosenWay] = useState<string | null | undefined>(undefined);
  const firstDeposit = deposits[0];
  const way =
    chosenWay !== undefined
      ? chosenWay
      : firstDeposit
        ? depositKey(firstDeposit)
        : wallets.length === 0
          ? 'phone'
          : null;

  // A payment that ended (the countdown reached zero) closes the form: there is nothing left to collect for.
  useEffect(() => {
    if (view.kind === 'final' && collect) {
      setCollect(null);
      collect.reject(new CollectClosed('the payment ended'));
    }
  }, [view.kind, collect]);

  return (
    <>
      <header class="top">
        <Languages lang={lang} t={t} />
      </header>
      <main id="main" class="card" aria-busy={view.kind === 'loading'}>
        <p class="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
          {payment.announcement}
        </p>
        {testMode && (
          <p class="test-mode" role="note" data-testid="test-mode">
            {t('page.testMode')}
          </p>
        )}
        {view.kind === 'loading' && <p class="muted">{t('page.loading')}</p>}
        {view.kind === 'notFound' && <NotFound t={t} />}
        {view.kind === 'loadFailed' && (
          <section data-view="load-failed">
            <h1>{t('page.loadFailed')}</h1>
            <button type="button" onClick={() => void payment.load()}>
              {t('page.retry')}
            </button>
          </section>
        )}
        {info && (view.kind === 'open' || view.kind === 'processing' || view.kind === 'final') && (
          <Summary
            info={info}
            lang={lang}
            t={t}
            config={config}
            live={view.kind === 'open'}
            status={view.kind === 'final' ? view.status : view.kind}
            now={now}
            onEnd={payment.countdownEnded}
          />
        )}
        {showsMessage(state) && (
          <p class="message" role="alert" data-testid="message">
            {message}
          </p>
        )}
        {info && paymentId && view.kind === 'open' && (
          <section data-view="open">
            {/* The deposit entries name each token and network themselves; without them, say what is accepted. */}
            {connected.length === 0 && deposits.length === 0 && (
              <Accepted chains={config.chains} t={t} title={t('accepted.title')} />
            )}
            {/* A phone without a browser wallet pays through the links below: no "install an extension" there. */}
            {!(phone && wallets.length === 0) && (
              <Wallets wallets={wallets} connected={connected} onConnect={connect} t={t} busy={busy !== null} />
            )}
            <Options
              state={options}
              lang={lang}
              t={t}
              busy={busy !== null}
              connected={connected.length > 0}
              chains={config.chains}
              fiat={info.amount}
              chosen={chosen}
              progress={busy}
              onPay={(o) => void pay(o)}
              onRefresh={() => void loadOptions()}
            />
            <DepositPanel
              gateway={gateway}
              paymentId={paymentId}
              lang={lang}
              t={t}
              refresh={statusAnswers}
              onDeposits={setDeposits}
              openKey={way}
              onOpen={setChosenWay}
              phone={phone}
            />
            <PhonePanel
              config={config}
              t={t}
              open={way === 'phone'}
              onToggle={(open) => setChosenWay(open ? 'phone' : null)}
              phone={phone}
            />
            {received.length > 0 ? (
              <p class="muted" data-testid="received-note">
                {t('deposit.received')}
              </p>
            ) : (
              <Cancel t={t} onCancel={() => void cancel()} disabled={busy !== null} />
            )}
          </section>
        )}
        {view.kind === 'processing' && (
          <Processing t={t} view={view} chains={config.chains} onConfirmAgain={(r) => void confirmAgain(r)} />
        )}
        {view.kind === 'final' && info && paymentId && (
          <Final view={view} info={info} lang={lang} t={t} config={config} paymentId={paymentId} received={received} />
        )}
        {paymentId && view.kind !== 'notFound' && <p class="reference muted">{t('reference', { paymentId })}</p>}
      </main>
      {collect && info && (
        <CollectDialog
          request={collect}
          title={t('collect.title', { merchant: info.merchant.name })}
          closeLabel={t('collect.close')}
          onDone={closeCollect}
        />
      )}
    </>
  );
}
