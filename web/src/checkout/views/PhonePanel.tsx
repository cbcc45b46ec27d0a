/**
 * For a buyer at a desktop whose wallet is on a phone: the payment link (which `@paygate/sdk-wallet`'s
 * `parsePaymentLink` reads) and, when the payment can be paid on Solana, a Solana Pay transaction request that any
 * Solana Pay wallet can scan. The page learns of a phone payment through its status poll.
 */
import { useState } from 'preact/hooks';
import type { Translate } from '../../i18n.js';
import type { CheckoutPageConfig } from '../../pageConfig.js';
import { QrCode } from './QrCode.js';

export function PhonePanel(props: { config: CheckoutPageConfig; t: Translate; open: boolean }) {
  const { config, t } = props;
  const [copied, setCopied] = useState(false);
  // The codes are drawn when the panel first opens: most buyers pay with a browser wallet and never need them.
  const [shown, setShown] = useState(props.open);
  if (!config.paymentLink) return null;
  const link = config.paymentLink;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <details class="phone" open={props.open} onToggle={(e) => e.currentTarget.open && setShown(true)}>
      <summary>{t('phone.title')}</summary>
      <p>{t('phone.link')}</p>
      {shown && <QrCode value={link} label={t('phone.qrLink')} />}
      <p class="link-row">
        <input type="text" readOnly value={link} aria-label={t('phone.qrLink')} data-testid="payment-link" />
        <button type="button" class="secondary" onClick={() => void copy()}>
          {t('phone.copy')}
        </button>
      </p>
      <p role="status" class="muted">
        {copied ? t('phone.copied') : ''}
      </p>
      {config.solanaPayLink && (
        <>
          <p>{t('phone.solanaPay')}</p>
          {shown && <QrCode value={config.solanaPayLink} label={t('phone.qrSolanaPay')} />}
          <p>
            <code data-testid="solana-pay-link" class="wrap">
              {config.solanaPayLink}
            </code>
          </p>
        </>
      )}
    </details>
  );
}
