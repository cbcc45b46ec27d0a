/**
 * The hosted checkout: one payment, from "connect a wallet" to its final view. The gateway API is the only source
 * of amounts, addresses and statuses; the page keeps a status poll running while the payment is open, so a payment
 * paid from a phone, cancelled by the merchant or expired shows up here without a reload.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import {
  collectDataOf,
  PayError,
  PaygateError,
  type ConfirmPaymentRequest,
  type PayableOption,
  type PaymentInfo,
  type PaymentStatusResponse,
  type Signers,
} from '@paygate/sdk-wallet';
import { translator, type Translate } from '../i18n.js';
import type { CheckoutChain, CheckoutPageConfig, Language } from '../pageConfig.js';
import { gatewayFor } from './api.js';
import { serverClock } from './clock.js';
import { CollectClosed, CollectDialog, CollectError, type CollectRequest } from './CollectDialog.js';
import {
  checkoutReducer,
  initialState,
  isFinalStatus,
  showsMessage,
  type ResultInfo,
  type View,
} from './checkoutMachine.js';
import { DepositPanel } from './DepositPanel.js';
import { formatFiat, formatRemaining, formatTime, formatToken, shorten } from './format.js';
import { PhonePanel } from './PhonePanel.js';
import {
  connectWallet,
  discoverWallets,
  isRejection,
  switchChain,
  watchAccounts,
  type BrowserWallet,
} from './wallets.js';

interface Connected {
  wallet: BrowserWallet;
  address: string;
}

type OptionsState =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'ready'; options: PayableOption[]; unavailable: string[] }
  | { kind: 'failed'; message: string };

const POLL_MS = 20_000;
const REDIRECT_S = 3;

function chainOfAccount(account: string): string {
  return account.split(':').slice(0, 2).join(':');
}

function explorerLink(chains: CheckoutChain[], caip2: string, txId: string): string | null {
  const template = chains.find((c) => c.caip2 === caip2)?.explorerTxUrl;
  return template ? template.replace('{txId}', encodeURIComponent(txId)) : null;
}

/**
 * Appends `payment_id` to the merchant's URL without re-encoding its query (a signed return URL must survive byte
 * for byte), before any fragment.
 */
export function withPaymentId(url: string, paymentId: string): string {
  const hash = url.indexOf('#');
  const [base, fragment] = hash >= 0 ? [url.slice(0, hash), url.slice(hash)] : [url, ''];
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}payment_id=${encodeURIComponent(paymentId)}${fragment}`;
}

/** The gateway's answer that the payment is no longer payable: its status, not a message, says what happened. */
function paymentEnded(error: unknown): boolean {
  return error instanceof PaygateError && ['payment_expired', 'invalid_state'].includes(error.code);
}

function reasonOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : String(error);
}

export function App(props: { config: CheckoutPageConfig }) {
  const { config } = props;
  const lang = config.lang as Language;
  const t = useMemo(() => translator(lang), [lang]);
  const now = useMemo(() => serverClock(config.serverTime), [config]);
  // A page without a payment (not found) has no app id and never calls the gateway.
  const gateway = useMemo(() => gatewayFor(config.appId ?? 'app_test_none', now), [config, now]);
  const paymentId = config.paymentId;
  // The hosted checkout's app id carries the payment's mode (`app_<mode>_…`, hostedCheckout/appIds.ts), as Stripe
  // marks every view of a test payment.
  const testMode = paymentId !== null && paymentId !== undefined && (config.appId ?? '').startsWith('app_test_');

  const [state, dispatch] = useReducer(checkoutReducer, paymentId, initialState);
  const { view, message } = state;
  const [info, setInfo] = useState<PaymentInfo | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [wallets, setWallets] = useState<BrowserWallet[]>([]);
  const [connected, setConnected] = useState<Connected[]>([]);
  const [options, setOptions] = useState<OptionsState>({ kind: 'idle' });
  const [busy, setBusy] = useState<string | null>(null);
  const setMessage = useCallback((text: string | null) => dispatch({ type: 'message', message: text }), []);
  const [collect, setCollect] = useState<CollectRequest | null>(null);
  // Counts the status poll's answers: the deposit panel reads what was received again on each.
  const [statusAnswers, setStatusAnswers] = useState(0);
  // Money at a deposit address: Cancel is refused by the gateway from then on (§26.2), so it is not offered.
  const [received, setReceived] = useState(false);
  const viewRef = useRef(view);
  viewRef.current = view;

  // A live region reads a change only: the same text again (a second attempt) is cleared first, then set.
  const announce = useCallback((text: string) => {
    setAnnouncement('');
    requestAnimationFrame(() => setAnnouncement(text));
  }, []);

  /** Moves to the view of a status answer; `live` when it happened during this visit (only then do we redirect). */
  const showStatus = useCallback(
    (answer: PaymentStatusResponse, live: boolean, txId: string | null = null, caip2: string | null = null) => {
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

  // Before the first paint, not after it: the payment read is what the buyer waits for.
  useLayoutEffect(() => void load(), [load]);

  // While the payment is open or processing, follow its status (long polling) whatever the buyer does here.
  // Paused while the buyer fills the data-collection form: its answer (IC_COMPLETE, or IC_ERROR saying why, e.g. the
  // payment expired meanwhile) decides what comes next, rather than a view change under the buyer's hands.
  const following = (view.kind === 'open' && collect === null) || view.kind === 'processing';
  useEffect(() => {
    if (!following || !paymentId) return;
    const controller = new AbortController();
    void (async () => {
      while (!controller.signal.aborted) {
        try {
          const answer = await gateway.getPaymentStatus(paymentId, { maxPollMs: POLL_MS, signal: controller.signal });
          if (controller.signal.aborted) return;
          setStatusAnswers((n) => n + 1);
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

  useEffect(() => discoverWallets(setWallets), []);

  // A payment that ended (the countdown reached zero) closes the form: there is nothing left to collect for.
  useEffect(() => {
    if (view.kind === 'final' && collect) {
      setCollect(null);
      collect.reject(new CollectClosed('the payment ended'));
    }
  }, [view.kind, collect]);
  const closeCollect = useCallback(() => setCollect(null), []);

  // The buyer may switch accounts or disconnect the site in the wallet: the options follow.
  const connectedIds = connected.map((c) => c.wallet.id).join(',');
  useEffect(() => {
    const stops = connected.map(({ wallet }) =>
      watchAccounts(wallet, (address) =>
        setConnected((current) =>
          address === null
            ? current.filter((c) => c.wallet.id !== wallet.id)
            : current.map((c) => (c.wallet.id === wallet.id ? { wallet, address } : c)),
        ),
      ),
    );
    return () => stops.forEach((stop) => stop());
    // Subscriptions follow the set of connected wallets (connectedIds), not each address change.
  }, [connectedIds]);

  const accounts = useMemo(() => {
    const list: string[] = [];
    for (const { wallet, address } of connected) {
      const namespace = wallet.kind === 'evm' ? 'eip155:' : 'solana:';
      for (const chain of config.chains) if (chain.caip2.startsWith(namespace)) list.push(`${chain.caip2}:${address}`);
    }
    return [...new Set(list)].slice(0, 50);
  }, [connected, config.chains]);

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

  // A quote is renewed when it goes stale, before the buyer can try to pay it.
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

  const connect = async (wallet: BrowserWallet) => {
    setMessage(null);
    try {
      const addresses = await connectWallet(wallet);
      setConnected((current) => [
        ...current.filter((c) => c.wallet.id !== wallet.id),
        ...addresses.slice(0, 1).map((address) => ({ wallet, address })),
      ]);
      if (addresses[0]) announce(t('wallets.connected', { wallet: wallet.name, account: shorten(addresses[0]) }));
    } catch (error) {
      setMessage(t('wallets.connectFailed', { wallet: wallet.name, reason: reasonOf(error) }));
    }
  };

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
    const signers: Signers =
      holder.wallet.kind === 'evm' ? { eip155: holder.wallet.provider } : { solana: holder.wallet.wallet };
    const chain = config.chains.find((c) => c.caip2 === caip2);
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
    if (!paymentId || viewRef.current.kind !== 'processing') return;
    const { txId, caip2 } = viewRef.current;
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

  const countdownEnded = useCallback(() => {
    if (!paymentId) return;
    void gateway
      .getPaymentStatus(paymentId)
      .then((answer) => showStatus(answer, true))
      .catch(() => undefined);
  }, [gateway, paymentId, showStatus]);

  return (
    <>
      <header class="top">
        <Languages lang={lang} t={t} />
      </header>
      <main id="main" class="card" aria-busy={view.kind === 'loading'}>
        <p class="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
          {announcement}
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
            <button type="button" onClick={() => void load()}>
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
            now={now}
            onEnd={countdownEnded}
          />
        )}
        {showsMessage(state) && (
          <p class="message" role="alert" data-testid="message">
            {message}
          </p>
        )}
        {info && view.kind === 'open' && (
          <section data-view="open">
            <Wallets wallets={wallets} connected={connected} onConnect={connect} t={t} busy={busy !== null} />
            {busy && (
              <p class="busy" data-testid="busy">
                {busy}
              </p>
            )}
            <Options
              state={options}
              lang={lang}
              t={t}
              busy={busy !== null}
              connected={connected.length > 0}
              chains={config.chains}
              onPay={(o) => void pay(o)}
              onRefresh={() => void loadOptions()}
            />
            <DepositPanel
              gateway={gateway}
              paymentId={paymentId!}
              lang={lang}
              t={t}
              refresh={statusAnswers}
              onReceived={setReceived}
            />
            <PhonePanel config={config} t={t} open={wallets.length === 0} />
            {received ? (
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
        {view.kind === 'final' && info && (
          <Final view={view} info={info} lang={lang} t={t} config={config} paymentId={paymentId!} />
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

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function Languages(props: { lang: Language; t: Translate }) {
  const names: Record<Language, string> = { en: 'English', fr: 'Français' };
  return (
    <nav aria-label={props.t('language.label')} class="languages">
      {(Object.keys(names) as Language[]).map((code) => (
        <a
          key={code}
          href={`?lang=${code}`}
          hreflang={code}
          lang={code}
          aria-current={code === props.lang ? 'true' : undefined}
        >
          {names[code]}
        </a>
      ))}
    </nav>
  );
}

function NotFound(props: { t: Translate }) {
  return (
    <section data-view="not-found">
      <h1>{props.t('notFound.title')}</h1>
      <p>{props.t('notFound.body')}</p>
    </section>
  );
}

function Monogram(props: { name: string; icon: string | null | undefined; size?: 'small' }) {
  const icon = props.icon && isLocalImage(props.icon) ? props.icon : null;
  const className = props.size === 'small' ? 'icon small' : 'icon';
  return icon ? (
    <img class={className} src={icon} alt="" />
  ) : (
    <span class={`${className} monogram`} aria-hidden="true">
      {props.name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}

/** Icons load only from this server or data: URIs (docs/decisions.md, "The hosted checkout": no third-party request). */
function isLocalImage(url: string): boolean {
  if (url.startsWith('data:image/')) return true;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

function Summary(props: {
  info: PaymentInfo;
  lang: Language;
  t: Translate;
  config: CheckoutPageConfig;
  live: boolean;
  now: () => number;
  onEnd: () => void;
}) {
  const { info, t, config } = props;
  const back = config.redirect && props.live ? withPaymentId(config.redirect.errorUrl, config.paymentId!) : null;
  return (
    <section class="summary" aria-labelledby="pay-title">
      <div class="merchant">
        <Monogram name={info.merchant.name} icon={info.merchant.iconUrl} />
        <h1 id="pay-title">{t('header.payTo', { merchant: info.merchant.name })}</h1>
      </div>
      <p class="amount">
        <span class="sr-only">{t('header.amount')}: </span>
        <span data-testid="fiat-amount">{formatFiat(info.amount, props.lang)}</span>
      </p>
      {props.live && <Countdown expiresAt={info.expiresAt} t={t} now={props.now} onEnd={props.onEnd} />}
      {back && (
        <p>
          <a href={back} class="back">
            {t('back.toMerchant', { merchant: info.merchant.name })}
          </a>
        </p>
      )}
    </section>
  );
}

function Countdown(props: { expiresAt: number; t: Translate; now: () => number; onEnd: () => void }) {
  const [current, setCurrent] = useState(props.now);
  const remaining = props.expiresAt * 1000 - current;
  const warning = remaining <= 60_000;
  const { onEnd } = props;
  useEffect(() => {
    const timer = setInterval(() => setCurrent(props.now()), 1000);
    return () => clearInterval(timer);
  }, [props.now]);
  useEffect(() => {
    if (remaining <= 0) onEnd();
  }, [remaining <= 0, onEnd]);
  return (
    <div class={warning ? 'countdown warning' : 'countdown'}>
      <span>{props.t('countdown.label')}</span>{' '}
      <time data-testid="countdown" dateTime={`PT${Math.max(0, Math.ceil(remaining / 1000))}S`}>
        {formatRemaining(remaining)}
      </time>
      {/* Announced once, when it appears; the seconds themselves are not read out. */}
      <p class="warning-text" role="alert">
        {warning && remaining > 0 ? props.t('countdown.warning') : ''}
      </p>
    </div>
  );
}

function Wallets(props: {
  wallets: BrowserWallet[];
  connected: Connected[];
  onConnect: (wallet: BrowserWallet) => void;
  t: Translate;
  busy: boolean;
}) {
  const { t } = props;
  const groups: [string, BrowserWallet[]][] = [
    [t('wallets.evm'), props.wallets.filter((w) => w.kind === 'evm')],
    [t('wallets.solana'), props.wallets.filter((w) => w.kind === 'solana')],
  ];
  return (
    <section aria-labelledby="wallets-title" class="wallets">
      <h2 id="wallets-title">{t('wallets.title')}</h2>
      {props.wallets.length === 0 && <p class="muted">{t('wallets.none')}</p>}
      {groups
        .filter(([, list]) => list.length > 0)
        .map(([title, list]) => (
          <div key={title}>
            <h3>{title}</h3>
            <ul class="wallet-list">
              {list.map((wallet) => {
                const account = props.connected.find((c) => c.wallet.id === wallet.id);
                return (
                  <li key={wallet.id}>
                    {account ? (
                      <p class="connected">
                        <Monogram name={wallet.name} icon={wallet.icon} size="small" />
                        {t('wallets.connected', { wallet: wallet.name, account: shorten(account.address) })}
                      </p>
                    ) : (
                      <button
                        type="button"
                        class="secondary wallet"
                        disabled={props.busy}
                        onClick={() => props.onConnect(wallet)}
                      >
                        <Monogram name={wallet.name} icon={wallet.icon} size="small" />
                        {t('wallets.connect', { wallet: wallet.name })}
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
    </section>
  );
}

function isGasless(option: PayableOption): boolean {
  if (option.account.startsWith('solana:')) return true;
  return option.actions.some((a) => a.type === 'walletRpc' && a.data.method === 'eth_signTypedData_v4');
}

function Options(props: {
  state: OptionsState;
  lang: Language;
  t: Translate;
  busy: boolean;
  connected: boolean;
  chains: CheckoutChain[];
  onPay: (option: PayableOption) => void;
  onRefresh: () => void;
}) {
  const { state, t } = props;
  if (!props.connected || state.kind === 'idle') return null;
  if (state.kind === 'loading') return <p class="muted">{t('options.loading')}</p>;
  if (state.kind === 'failed') {
    return (
      <section class="options">
        <p role="alert" class="message">
          {state.message}
        </p>
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      </section>
    );
  }
  // A network whose RPC endpoints all fail lists no option: say so, rather than "no balance" (decisions.md §27.9).
  const unavailable = state.unavailable.length > 0 && (
    <div class="unavailable" data-testid="unavailable-networks">
      <ul>
        {state.unavailable.map((caip2) => (
          <li key={caip2} class="message" data-chain={caip2}>
            {t('options.unavailable', { network: props.chains.find((c) => c.caip2 === caip2)?.name ?? caip2 })}
          </li>
        ))}
      </ul>
      {state.options.length > 0 && (
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      )}
    </div>
  );
  if (state.options.length === 0) {
    return (
      <section class="options" data-testid="no-options" aria-labelledby="none-title">
        <h2 id="none-title">{t('options.none.title')}</h2>
        {unavailable}
        <p>{t('options.none.body')}</p>
        <ul class="accepted">
          {props.chains.flatMap((chain) =>
            chain.assets.map((asset) => (
              <li key={`${chain.caip2}/${asset}`}>{t('options.none.asset', { asset, network: chain.name })}</li>
            )),
          )}
        </ul>
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      </section>
    );
  }
  return (
    <section class="options" aria-labelledby="options-title">
      <h2 id="options-title">{t('options.title')}</h2>
      {unavailable}
      <ul class="option-list">
        {state.options.map((option) => {
          const amount = formatToken(option.amount, props.lang);
          const network = option.amount.display?.networkName ?? chainOfAccount(option.account);
          return (
            <li
              key={option.id}
              class="option"
              data-testid="option"
              data-account={option.account}
              data-option-id={option.id}
            >
              <div class="option-main">
                <Monogram
                  name={option.amount.display?.assetSymbol ?? '?'}
                  icon={option.amount.display?.iconUrl}
                  size="small"
                />
                <div>
                  <p class="option-amount">{amount}</p>
                  <p class="muted">
                    {t('options.network', { network })} · {t('options.eta', { seconds: option.etaS })}
                  </p>
                  <p class="badges">
                    {isGasless(option) && <span class="badge">{t('options.gasless')}</span>}
                    {collectDataOf(option) && <span class="badge info">{t('options.infoRequired')}</span>}
                  </p>
                </div>
              </div>
              <button type="button" disabled={props.busy} onClick={() => props.onPay(option)}>
                {t('options.pay', { amount })}
                <span class="sr-only"> {t('options.network', { network })}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Cancel(props: { t: Translate; onCancel: () => void; disabled: boolean }) {
  const [asking, setAsking] = useState(false);
  const { t } = props;
  return (
    <section class="cancel">
      {asking ? (
        <div role="group" aria-label={t('cancel.confirm')}>
          <p>{t('cancel.confirm')}</p>
          <button type="button" class="danger" onClick={props.onCancel}>
            {t('cancel.yes')}
          </button>
          <button type="button" class="secondary" onClick={() => setAsking(false)}>
            {t('cancel.no')}
          </button>
        </div>
      ) : (
        <button type="button" class="link" disabled={props.disabled} onClick={() => setAsking(true)}>
          {t('cancel.button')}
        </button>
      )}
    </section>
  );
}

function TxLink(props: { txId: string; caip2: string | null; chains: CheckoutChain[] }) {
  const href = props.caip2 ? explorerLink(props.chains, props.caip2, props.txId) : null;
  const text = shorten(props.txId);
  return href ? (
    <a href={href} rel="noopener noreferrer" target="_blank" data-testid="tx-link" title={props.txId}>
      {text}
    </a>
  ) : (
    <code data-testid="tx-id" title={props.txId}>
      {text}
    </code>
  );
}

function Processing(props: {
  t: Translate;
  view: Extract<View, { kind: 'processing' }>;
  chains: CheckoutChain[];
  onConfirmAgain: (request: ConfirmPaymentRequest) => void;
}) {
  const { txId, caip2, unconfirmed } = props.view;
  return (
    <section data-view="processing">
      <div class="spinner" aria-hidden="true" />
      <Heading>{props.t('processing.title')}</Heading>
      <p>{props.t('processing.body')}</p>
      {txId && (
        <p>
          {props.t('succeeded.tx')}: <TxLink txId={txId} caip2={caip2} chains={props.chains} />
        </p>
      )}
      {unconfirmed && (
        <>
          <p class="message" role="alert" data-testid="message">
            {unconfirmed.error}
          </p>
          <button type="button" onClick={() => props.onConfirmAgain(unconfirmed.request)}>
            {props.t('confirm.retry')}
          </button>
        </>
      )}
    </section>
  );
}

/** A view's heading takes the focus when the view appears, so keyboard and screen reader users land on it. */
function Heading(props: { children: string; class?: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h2 ref={ref} tabIndex={-1} class={props.class}>
      {props.children}
    </h2>
  );
}

function Final(props: {
  view: Extract<View, { kind: 'final' }>;
  info: PaymentInfo;
  lang: Language;
  t: Translate;
  config: CheckoutPageConfig;
  paymentId: string;
}) {
  const { view, t, config } = props;
  const target =
    config.redirect && view.live
      ? withPaymentId(
          view.status === 'succeeded' ? config.redirect.successUrl : config.redirect.errorUrl,
          props.paymentId,
        )
      : null;
  return (
    <section data-view={view.status}>
      <Heading class={`result ${view.status}`}>{t(`${view.status}.title`)}</Heading>
      {view.status === 'succeeded' ? (
        <Receipt result={view.result} seenAt={view.seenAt} lang={props.lang} t={t} chains={config.chains} />
      ) : (
        <p>{t(`${view.status}.body`, { paymentId: props.paymentId })}</p>
      )}
      {target && <Redirect to={target} merchant={props.info.merchant.name} t={t} />}
    </section>
  );
}

function Receipt(props: {
  result: ResultInfo | null;
  seenAt: number | null;
  lang: Language;
  t: Translate;
  chains: CheckoutChain[];
}) {
  const { result, t } = props;
  if (!result) return null;
  const amount = result.optionAmount;
  const caip2 = /^caip19\/([^/]+)\//.exec(amount.unit)?.[1] ?? null;
  const time = typeof result.paidAt === 'number' ? result.paidAt * 1000 : props.seenAt;
  return (
    <dl class="receipt">
      <dt>{t('succeeded.paid')}</dt>
      <dd data-testid="paid-amount">{formatToken(amount, props.lang)}</dd>
      <dt>{t('succeeded.token')}</dt>
      <dd>{amount.display?.assetName ?? amount.display?.assetSymbol}</dd>
      <dt>{t('succeeded.network')}</dt>
      <dd>{amount.display?.networkName ?? caip2}</dd>
      <dt>{t('succeeded.tx')}</dt>
      <dd>
        <TxLink txId={result.txId} caip2={caip2} chains={props.chains} />
      </dd>
      {time !== null && (
        <>
          <dt>{t('succeeded.time')}</dt>
          <dd>{formatTime(time, props.lang)}</dd>
        </>
      )}
    </dl>
  );
}

function Redirect(props: { to: string; merchant: string; t: Translate }) {
  const [left, setLeft] = useState(REDIRECT_S);
  useEffect(() => {
    if (left <= 0) {
      location.assign(props.to);
      return;
    }
    const timer = setTimeout(() => setLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [left, props.to]);
  return (
    <p class="redirect" data-testid="redirect">
      {props.t('redirect.countdown', { merchant: props.merchant, seconds: Math.max(left, 0) })}{' '}
      <a href={props.to}>{props.t('redirect.now')}</a>
    </p>
  );
}
