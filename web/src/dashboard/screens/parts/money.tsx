/**
 * Money and networks as the screens show them (issue 31 finding 3, docs/decisions.md §26.6): a token amount in whole
 * units with its symbol by the one display rule (kit/amounts.ts), a fiat amount in the locale, a network by its name,
 * an address without its CAIP prefix, a transaction linked to the chain's explorer when it has one. The exact minor
 * units and the CAIP ids stay in titles and the JSON view, never as the text.
 */
import type { DashboardChain } from '../../config';
import { CopyButton } from '../../../kit/CopyButton.js';
import { showAmount } from '../../../kit/amounts.js';
import { NetworkName, TokenIcon } from '../../../kit/icons/AssetIcons.js';
import { assetOfUnit, currencyCode, formatMoney, type Money } from './format.js';

export function chainName(chains: DashboardChain[], caip2: string): string {
  return chains.find((c) => c.caip2 === caip2)?.name ?? caip2;
}

export function assetInfo(chains: DashboardChain[], asset: string | null) {
  if (asset === null) return null;
  for (const chain of chains) {
    const found = chain.assets?.find((a) => a.caip19 === asset);
    if (found) return found;
  }
  return null;
}

/**
 * A token amount, rounded to the nearest by the display rule (it shows what moved, not what is to pay); the title
 * keeps every digit and the asset id. Without the asset's decimals (a chain this server no longer runs) it stays in
 * minor units and says so, never guessed.
 */
export function TokenAmount(props: { chains: DashboardChain[]; amount: Money }) {
  const asset = assetOfUnit(props.amount.unit);
  const info = assetInfo(props.chains, asset);
  if (!info) {
    return (
      <span class="num" title={`${props.amount.value} minor units of ${asset ?? props.amount.unit}`}>
        {props.amount.value} minor units
      </span>
    );
  }
  const shown = showAmount(
    { value: props.amount.value, decimals: info.decimals, symbol: info.symbol },
    { rounding: 'nearest' },
  );
  return (
    <span class="num with-icon" title={`${shown.full} (${props.amount.value} minor units of ${asset})`}>
      <TokenIcon symbol={info.symbol} size={18} />
      {shown.text}
    </span>
  );
}

/** A fiat amount in the user's locale; the title keeps the exact minor units. */
export function Amount(props: { amount: Money }) {
  return (
    <span class="num" title={`${props.amount.value} ${props.amount.unit} (minor units)`}>
      {formatMoney(props.amount)}
    </span>
  );
}

/** Any amount of the contract: fiat by the locale, a token by the display rule. */
export function AnyAmount(props: { chains: DashboardChain[]; amount: Money }) {
  return currencyCode(props.amount.unit) ? (
    <Amount amount={props.amount} />
  ) : (
    <TokenAmount chains={props.chains} amount={props.amount} />
  );
}

export function Network(props: { chains: DashboardChain[]; caip2: string }) {
  return (
    <span title={props.caip2}>
      <NetworkName name={chainName(props.chains, props.caip2)} />
    </span>
  );
}

/** An account (CAIP-10 `namespace:reference:address`) as its address, which is what a wallet or an explorer shows. */
export function Account(props: { caip10: string }) {
  const address = props.caip10.split(':').slice(2).join(':') || props.caip10;
  return (
    <span class="copyable">
      <code class="break" title={props.caip10}>
        {address}
      </code>{' '}
      <CopyButton value={address} label="Copy address" />
    </span>
  );
}

/** A transaction: a link to the chain's explorer when the server names one, else its id to copy. */
export function Transaction(props: { chains: DashboardChain[]; caip2: string | null; txId: string }) {
  const template = props.chains.find((c) => c.caip2 === props.caip2)?.explorerTxUrl;
  // The simulator's transactions (`test:<paymentId>`) exist on no chain.
  const href = template && !props.txId.startsWith('test:') ? template.replace('{txId}', props.txId) : null;
  return (
    <span class="copyable">
      {href ? (
        <a href={href} rel="noopener noreferrer" target="_blank" class="break">
          <code>{props.txId}</code>
          <span class="visually-hidden"> (opens the explorer)</span>
        </a>
      ) : (
        <code class="break">{props.txId}</code>
      )}{' '}
      <CopyButton value={props.txId} label="Copy transaction id" />
    </span>
  );
}
