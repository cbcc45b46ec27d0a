/** How the payment ended: its receipt when it succeeded, and the way back to the merchant. */
import { useEffect, useState } from 'preact/hooks';
import type { PaymentInfo } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain, CheckoutPageConfig, Language } from '../../pageConfig.js';
import type { ResultInfo, View } from '../checkoutMachine.js';
import { formatTime, formatToken } from '../format.js';
import { withPaymentId } from '../links.js';
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
