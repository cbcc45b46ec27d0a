/**
 * Which pairs price one thing in another. A pair `A/B` is B per A (`ETH/USD` = 3000 means 1 ETH is 3000 USD); it
 * prices A in B as it is and B in A inverted. When no pair joins the two, a cross rate goes through one common
 * currency (ETH in EUR = ETH/USD ÷ EUR/USD), preferring USD, in which most feeds are quoted. Longer chains are not
 * searched: each extra feed adds its own staleness and error to the price.
 */
import { invert, multiply, type Ratio } from './rational.js';

export interface RouteStep {
  pair: string;
  /** Use the pair's price inverted (the route goes from its quote side to its base side). */
  invert: boolean;
}

export function splitPair(pair: string): [string, string] {
  const slash = pair.indexOf('/');
  return [pair.slice(0, slash), pair.slice(slash + 1)];
}

/** Preferred intermediate currencies, in order; any other is tried after them, alphabetically. */
const PREFERRED_VIA = ['USD', 'EUR'];

/** The steps that price one `base` in `quote` from the pairs available, or null when none do. */
export function findRoute(pairs: Iterable<string>, base: string, quote: string): RouteStep[] | null {
  const available = new Set(pairs);
  const edge = (from: string, to: string): RouteStep | null => {
    if (available.has(`${from}/${to}`)) return { pair: `${from}/${to}`, invert: false };
    if (available.has(`${to}/${from}`)) return { pair: `${to}/${from}`, invert: true };
    return null;
  };
  if (base === quote) return [];
  const direct = edge(base, quote);
  if (direct) return [direct];
  const sides = new Set([...available].flatMap(splitPair));
  sides.delete(base);
  sides.delete(quote);
  const via = [...sides].sort((a, b) => {
    const rank = (s: string) => (PREFERRED_VIA.includes(s) ? PREFERRED_VIA.indexOf(s) : PREFERRED_VIA.length);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  for (const middle of via) {
    const first = edge(base, middle);
    const second = first && edge(middle, quote);
    if (first && second) return [first, second];
  }
  return null;
}

/** The price of the route's base in its quote, from each pair's price. */
export function routePrice(route: readonly RouteStep[], priceOf: (pair: string) => Ratio): Ratio {
  return route.reduce<Ratio>(
    (acc, step) => {
      const price = priceOf(step.pair);
      return multiply(acc, step.invert ? invert(price) : price);
    },
    { n: 1n, d: 1n },
  );
}
