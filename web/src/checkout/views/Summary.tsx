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
        <span class="visually-hidden">{t(amountLabel(props.status))}: </span>
        <span data-testid="fiat-amount">{formatFiat(info.amount, props.lang)}</span>
      </p>
      {config.reference && (
        <p class="order" data-testid="order-reference">
          {t('summary.order', { reference: config.reference })}
        </p>
      )}
      <Sold info={info} lang={props.lang} t={t} />
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

/** What the merchant says was sold: its description and its lines, each with its price (issue 35 §1). */
function Sold(props: { info: PaymentInfo; lang: Language; t: Translate }) {
  const { info, t } = props;
  const lines = info.lineItems ?? [];
  if (!info.description && lines.length === 0) return null;
  const price = (value: string) => formatFiat({ ...info.amount, value }, props.lang);
  return (
    <div class="sold">
      {info.description && (
        <p class="description" data-testid="payment-description">
          {info.description}
        </p>
      )}
      {lines.length > 0 && (
        <table class="line-items" aria-label={t('summary.items')}>
          <tbody>
            {lines.map((line, i) => (
              <tr key={i}>
                <th scope="row">{t('summary.line', { quantity: line.quantity, name: line.name })}</th>
                <td>{price((BigInt(line.unitAmount) * BigInt(line.quantity)).toString())}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
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
