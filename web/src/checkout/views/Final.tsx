/** How the payment ended: its receipt when it succeeded, and the way back to the merchant. */
import { useEffect, useState } from 'preact/hooks';
import type { PaymentInfo } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain, CheckoutPageConfig, Language } from '../../pageConfig.js';
import type { ResultInfo, View } from '../checkoutMachine.js';
import { formatTime, formatToken } from '../format.js';
import { withPaymentId } from '../links.js';
import type { DepositOption } from './DepositPanel.js';
import { Heading } from './Heading.js';
import { TxLink } from './TxLink.js';

const REDIRECT_S = 3;

export function Final(props: {
  view: Extract<View, { kind: 'final' }>;
  info: PaymentInfo;
  lang: Language;
  t: Translate;
  config: CheckoutPageConfig;
  paymentId: string;
  /** Deposit entries that received money while this page was open (finding 1): said on an unpaid ending. */
  received: DepositOption[];
}) {
  const { view, t, config } = props;
  const merchant = props.info.merchant.name;
  // Opened after the payment ended, or a status the merchant has no URL for: no redirect, but still the way back.
  const back =
    config.redirect && !view.live
      ? withPaymentId(
          view.status === 'succeeded' ? config.redirect.successUrl : config.redirect.errorUrl,
          props.paymentId,
        )
      : null;
  const partly = view.status !== 'succeeded' && props.received.length > 0;
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
        <p>
          {partly && view.status === 'cancelled'
            ? t('cancelled.bodyReceived')
            : t(`${view.status}.body`, { paymentId: props.paymentId })}
        </p>
      )}
      {partly && (
        <div class="received" data-testid="received">
          {props.received.map((d) => (
            <p key={`${d.chain}/${d.amount.unit}`}>
              {t(view.status === 'cancelled' ? 'cancelled.received' : 'expired.received', {
                amount: formatToken(d.received, props.lang, 'nearest'),
                network: d.amount.display.networkName ?? d.chain,
              })}
            </p>
          ))}
          <p>{t('ended.refund', { merchant })}</p>
        </div>
      )}
      {target && <Redirect to={target} merchant={merchant} t={t} />}
      {back && (
        <p>
          <a href={back}>{t('back.toMerchant', { merchant })}</a>
        </p>
      )}
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
      <dd data-testid="paid-amount">{formatToken(amount, props.lang, 'nearest')}</dd>
      <dt>{t('succeeded.token')}</dt>
      <dd>{amount.display?.assetName ?? amount.display?.assetSymbol}</dd>
      <dt>{t('succeeded.network')}</dt>
      <dd>{amount.display?.networkName ?? caip2}</dd>
      <dt>{t('succeeded.tx')}</dt>
      <dd class="tx">
        <TxLink txId={result.txId} caip2={caip2} chains={props.chains} />{' '}
        <CopyButton text={result.txId} label={t('succeeded.copyTx')} copied={t('succeeded.copiedTx')} t={t} />
      </dd>
      {time !== null && (
        <>
          <dt>{t('succeeded.time')}</dt>
          <dd data-testid="paid-time">{formatTime(time, props.lang)}</dd>
        </>
      )}
    </dl>
  );
}

/** Copies the exact value (a transaction id is what a buyer pastes into a message to the merchant). */
function CopyButton(props: { text: string; label: string; copied: string; t: Translate }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setDone(true);
    } catch {
      setDone(false);
    }
  };
  return (
    <>
      <button type="button" class="secondary small" aria-label={props.label} onClick={() => void copy()}>
        {props.t('deposit.copy')}
      </button>
      <span role="status" class="muted copied">
        {done ? props.copied : ''}
      </span>
    </>
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
