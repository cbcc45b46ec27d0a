/**
 * "Pay from any wallet or exchange": for a payment of a merchant in collected settlement, the gateway's deposit
 * options (getDepositOptions), one per network and asset: the exact amount, the payment's own deposit address (each
 * with a copy button) and a QR code of the payment URI (EIP-681 or a Solana Pay transfer request). What was received
 * and what is left are read again each time the page's status poll answers. A merchant paid directly answers
 * `invalid_state` and the panel stays hidden.
 */
import { useEffect, useState } from 'preact/hooks';
import type { PaygateWallet } from '@paygate/sdk-wallet';
import type { components } from '../../generated/gateway.js';
import type { Translate } from '../../i18n.js';
import type { Language } from '../../pageConfig.js';
import { toDecimal } from '../../kit/amounts.js';
import { formatToken } from '../format.js';
import { QrCode } from './QrCode.js';

export type DepositOption = components['schemas']['DepositOption'];

/** An entry's key: its network and asset, so a refresh keeps the buyer's choice. */
export function depositKey(deposit: DepositOption): string {
  return `${deposit.chain}/${deposit.amount.unit}`;
}

/** The deposit options, or null when the gateway refuses them (a payment paid directly: 409 `invalid_state`). */
async function readDeposits(gateway: PaygateWallet, paymentId: string): Promise<DepositOption[] | null> {
  const answer = await gateway.client.GET('/v1/gateway/payment/{id}/deposit', {
    params: { path: { id: paymentId } },
  });
  if (answer.response.status === 409) return null;
  // Any other failure (a 429, a 503 under load) says nothing about the deposits: keep what is shown.
  if (!answer.data) throw new Error(`deposit options answered ${answer.response.status}`);
  return answer.data.deposits;
}

export function DepositPanel(props: {
  gateway: PaygateWallet;
  paymentId: string;
  lang: Language;
  t: Translate;
  /** Changes each time the status poll answers: the moment to read what was received again. */
  refresh: number;
  /** Told of the deposit options at each read: what was received (§26.2) and which entries there are. */
  onDeposits(deposits: DepositOption[]): void;
  /**
   * The one entry open (the page's chosen way to pay, which may be another panel: then none here). One at a time:
   * every network's amount, address and QR at once is a long page on a phone, and a buyer pays on one network.
   */
  openKey: string | null;
  onOpen(key: string | null): void;
  phone: boolean;
}) {
  const { gateway, paymentId, t, onDeposits } = props;
  const [deposits, setDeposits] = useState<DepositOption[]>([]);
  // A direct-mode payment answers 409 once and always will: no read again on each status poll.
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (refused) return;
    let current = true;
    readDeposits(gateway, paymentId)
      .then((list) => {
        if (!current) return;
        if (list === null) return setRefused(true);
        setDeposits(list);
        onDeposits(list);
      })
      // Unreachable for now: keep what is shown; the next status answer reads again.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [gateway, paymentId, props.refresh, refused, onDeposits]);

  if (deposits.length === 0) return null;
  return (
    <section class="deposits" aria-labelledby="deposits-title" data-testid="deposits">
      <h2 id="deposits-title">{t('deposit.title')}</h2>
      <p class="muted">{t('deposit.body')}</p>
      <ul class="deposit-list">
        {deposits.map((d) => {
          const key = depositKey(d);
          const open = props.openKey === key;
          return (
            <DepositEntry
              key={key}
              deposit={d}
              lang={props.lang}
              t={t}
              open={open}
              phone={props.phone}
              onToggle={(nowOpen) => {
                // A toggle event also follows our own closing of the entry another one replaced: only a change of
                // this entry's own state by the buyer counts.
                if (nowOpen && !open) props.onOpen(key);
                else if (!nowOpen && open) props.onOpen(null);
              }}
            />
          );
        })}
      </ul>
    </section>
  );
}

function DepositEntry(props: {
  deposit: DepositOption;
  lang: Language;
  t: Translate;
  open: boolean;
  phone: boolean;
  onToggle(open: boolean): void;
}) {
  const { deposit, t } = props;
  const [copied, setCopied] = useState('');
  const symbol = deposit.amount.display.assetSymbol;
  const network = deposit.amount.display.networkName ?? deposit.chain;
  const partial = deposit.received.value !== '0';
  // The amount to type into an exchange's form: what is left, in whole units, every digit kept (a deposit is
  // credited by its exact amount, so this is the one place the page shows the full amount rather than the rule's).
  const toSend = toDecimal(deposit.remaining.value, deposit.remaining.display.decimals);
  const copy = async (what: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(what);
    } catch {
      setCopied('');
    }
  };
  return (
    <li class="deposit" data-testid="deposit" data-chain={deposit.chain}>
      {partial && (
        <p class="deposit-progress" data-testid="deposit-progress">
          {t('deposit.partial', {
            network,
            received: formatToken(deposit.received, props.lang, 'nearest'),
            left: formatToken(deposit.remaining, props.lang),
          })}
        </p>
      )}
      <details open={props.open} onToggle={(e) => props.onToggle(e.currentTarget.open)}>
        <summary>{t('deposit.entry', { asset: symbol, network })}</summary>
        <p>{t('deposit.instruction', { asset: symbol, network })}</p>
        <dl class="deposit-fields">
          <dt>{t('deposit.amount')}</dt>
          <dd class="link-row">
            <code data-testid="deposit-amount">{`${toSend} ${symbol}`}</code>
            <button
              type="button"
              class="secondary"
              onClick={() => void copy(t('deposit.copiedAmount'), toSend)}
              aria-label={t('deposit.copyAmount', { network })}
            >
              {t('deposit.copy')}
            </button>
          </dd>
          <dt>{t('deposit.address')}</dt>
          <dd class="link-row">
            <code class="wrap" data-testid="deposit-address">
              {deposit.address}
            </code>
            <button
              type="button"
              class="secondary"
              onClick={() => void copy(t('deposit.copiedAddress'), deposit.address)}
              aria-label={t('deposit.copyAddress', { network })}
            >
              {t('deposit.copy')}
            </button>
          </dd>
        </dl>
        <p class="muted">{t('deposit.warning', { asset: symbol, network })}</p>
        {/* One QR code on the page, the open entry's; none on a phone, where the link below opens the wallet. */}
        {props.open && !props.phone && (
          <QrCode value={deposit.uri} label={t('deposit.qr', { asset: symbol, network })} />
        )}
        <p>
          <a href={deposit.uri} data-testid="deposit-uri">
            {t('deposit.open')}
          </a>
        </p>
        <p role="status" class="muted">
          {copied}
        </p>
      </details>
    </li>
  );
}
