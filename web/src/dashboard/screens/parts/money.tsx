/** Money and networks as the screens show them: a network's name, a token amount in whole tokens, a fiat amount. */
import type { DashboardChain } from '../../config';
import { assetOfUnit, formatMoney, formatTokenAmount, type Money } from './format.js';

export function chainName(chains: DashboardChain[], caip2: string): string {
  return chains.find((c) => c.caip2 === caip2)?.name ?? caip2;
}

function assetInfo(chains: DashboardChain[], asset: string | null) {
  if (asset === null) return null;
  for (const chain of chains) {
    const found = chain.assets?.find((a) => a.caip19 === asset);
    if (found) return found;
  }
  return null;
}

/** A token amount; the title keeps the exact minor units and the asset id (what the CSV and the API carry). */
export function TokenAmount(props: { chains: DashboardChain[]; amount: Money }) {
  const asset = assetOfUnit(props.amount.unit);
  return (
    <span class="num" title={`${props.amount.value} minor units of ${asset ?? props.amount.unit}`}>
      {formatTokenAmount(props.amount, assetInfo(props.chains, asset))}
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
