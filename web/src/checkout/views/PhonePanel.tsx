/**
 * For a buyer whose wallet is on a phone: the payment link (which `@paygate/sdk-wallet`'s `parsePaymentLink` reads)
 * and, when the payment can be paid on Solana, a Solana Pay transaction request. On a desktop the buyer picks which
 * of the two to scan and sees that one QR code; on a phone there is nothing to scan, so the Solana Pay request is a
 * link that opens the wallet app, and the payment link is there to copy (decisions.md §26.9). The page learns of a
 * phone payment through its status poll.
 */
import { useState } from 'preact/hooks';
import type { Translate } from '../../i18n.js';
import type { CheckoutPageConfig } from '../../pageConfig.js';
import { QrCode } from './QrCode.js';

export function PhonePanel(props: {
  config: CheckoutPageConfig;
  t: Translate;
  open: boolean;
  onToggle(open: boolean): void;
  phone: boolean;
}) {
  const { config, t } = props;
  const [copied, setCopied] = useState(false);
  const [scan, setScan] = useState<'link' | 'solanaPay'>('link');
  if (!config.paymentLink) return null;
  const link = config.paymentLink;
  const solanaPay = config.solanaPayLink;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  const choice = (value: 'link' | 'solanaPay', label: string) => (
    <button type="button" class="secondary" aria-pressed={scan === value} onClick={() => setScan(value)}>
      {label}
    </button>
  );
  return (
    <details
      class="phone"
      open={props.open}
      onToggle={(e) => {
        // Our own opening or closing of the panel also fires this: only a change against the prop is the buyer's.
        if (e.currentTarget.open !== props.open) props.onToggle(e.currentTarget.open);
      }}
    >
      <summary>{t(props.phone ? 'phone.titleApp' : 'phone.title')}</summary>
      {!props.phone && solanaPay && (
        <div role="group" aria-label={t('phone.choice')} class="choice">
          {choice('link', t('phone.paygateChoice'))}
          {choice('solanaPay', t('phone.solanaPayChoice'))}
        </div>
      )}
      {props.phone && solanaPay && (
        <p>
          <a href={solanaPay} class="open-wallet" data-testid="solana-pay-open">
            {t('phone.openSolanaPay')}
          </a>
        </p>
      )}
      {!props.phone && scan === 'solanaPay' && solanaPay ? (
        <>
          <p>{t('phone.solanaPay')}</p>
          {props.open && <QrCode value={solanaPay} label={t('phone.qrSolanaPay')} />}
          <p>
            <code data-testid="solana-pay-link" class="wrap">
              {solanaPay}
            </code>
          </p>
        </>
      ) : (
        <>
          <p>{t(props.phone ? 'phone.linkApp' : 'phone.link')}</p>
          {props.open && !props.phone && <QrCode value={link} label={t('phone.qrLink')} />}
          <p class="link-row">
            <input type="text" readOnly value={link} aria-label={t('phone.qrLink')} data-testid="payment-link" />
            <button type="button" class="secondary" onClick={() => void copy()}>
              {t('phone.copy')}
            </button>
          </p>
          <p role="status" class="muted">
            {copied ? t('phone.copied') : ''}
          </p>
        </>
      )}
    </details>
  );
}
