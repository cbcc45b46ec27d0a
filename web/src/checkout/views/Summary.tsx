/** Who is paid and how much, with the time left to pay while the payment is open. */
import { useEffect, useState } from 'preact/hooks';
import type { PaymentInfo } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutPageConfig, Language } from '../../pageConfig.js';
import { formatFiat, formatRemaining } from '../format.js';
import { withPaymentId } from '../links.js';
import { Monogram } from './Monogram.js';

export function Summary(props: {
  info: PaymentInfo;
  lang: Language;
  t: Translate;
  config: CheckoutPageConfig;
  live: boolean;
  /** What the amount is to the buyer: due while open, paid once succeeded, only the amount otherwise. */
  status: string;
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
        <span class="sr-only">{t(amountLabel(props.status))}: </span>
        <span data-testid="fiat-amount">{formatFiat(info.amount, props.lang)}</span>
      </p>
      {config.reference && (
        <p class="order" data-testid="order-reference">
          {t('summary.order', { reference: config.reference })}
        </p>
      )}
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

function amountLabel(status: string): 'header.amount' | 'header.amountPaid' | 'header.amountTotal' {
  if (status === 'open') return 'header.amount';
  return status === 'succeeded' ? 'header.amountPaid' : 'header.amountTotal';
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
