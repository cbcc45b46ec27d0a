/**
 * The fiat currencies the configured chains could price, per mode (docs/decisions.md §5): a payment in any other
 * currency would be created and then never offered an option, so create refuses it. A currency is priceable on a
 * chain when one of its assets is pegged to it, or a route joins an asset to it through the pairs that chain prices
 * from (its Chainlink feeds, or the static table on a test chain without feeds; quotes/pricing.ts). Read from the
 * configuration only: a feed that is stale or down at create time does not refuse a payment (it has no option for as
 * long as it stays down, as before).
 */
import { findCurrency } from '../currencies.js';
import type { ConfiguredChain } from '../chains/index.js';
import { usesStaticTable } from './pricing.js';
import { findRoute, splitPair } from './routes.js';
import type { StaticRates } from './staticRates.js';

/** The currencies payments of one mode may be created in, sorted; null when no chain of that mode is configured. */
export type PricedCurrencies = (live: boolean) => readonly string[] | null;

type PricedChain = Pick<ConfiguredChain, 'config'>;

function currenciesOf(chain: PricedChain, staticRates: StaticRates): Set<string> {
  const pairs = usesStaticTable(chain.config) ? [...staticRates.keys()] : Object.keys(chain.config.priceFeeds);
  const candidates = new Set(pairs.flatMap(splitPair).filter((side) => findCurrency(side) !== null));
  const priced = new Set<string>();
  for (const asset of chain.config.assets) {
    if (asset.peg) priced.add(asset.peg);
    const base = asset.peg ?? asset.symbol;
    for (const currency of candidates) if (findRoute(pairs, base, currency)) priced.add(currency);
  }
  return priced;
}

export function pricedCurrenciesOf(chains: readonly PricedChain[], staticRates: StaticRates): PricedCurrencies {
  const byMode = (live: boolean): readonly string[] | null => {
    const ofMode = chains.filter((c) => (c.config.mode === 'live') === live);
    if (ofMode.length === 0) return null;
    return [...new Set(ofMode.flatMap((c) => [...currenciesOf(c, staticRates)]))].sort();
  };
  const live = byMode(true);
  const test = byMode(false);
  return (isLive) => (isLive ? live : test);
}
