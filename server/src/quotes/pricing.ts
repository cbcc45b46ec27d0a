/**
 * Quotes: the token amount that pays a fiat amount, for one asset on one chain (docs/decisions.md §11). A stablecoin
 * of the payment's own currency pays 1:1 and never expires. Anything else needs a price: from the chain's Chainlink
 * feeds, or, on a test-mode chain without feeds, from the static table. No price, no quote: the caller offers no
 * option for that asset, and nothing here throws for a feed that is stale, down or unreachable.
 */
import type { Logger } from 'pino';
import { shortError, type ConfiguredChain } from '../chains/index.js';
import type { Config } from '../config.js';
import { createFeedReader, refusePriceRound, refuseSequencer, type CachedRound, type FeedClient } from './chainlink.js';
import { scaled, tokenAmount, type Ratio } from './rational.js';
import { findRoute, routePrice } from './routes.js';
import { loadStaticRates, type StaticRates } from './staticRates.js';

/** An amount of a currency in its minor units: USD, 2, 1250n is $12.50; JPY, 0, 1250n is ¥1,250. */
export interface FiatAmount {
  /** ISO 4217, upper case. */
  currency: string;
  /** The currency's minor-unit digits (ISO 4217). */
  digits: number;
  minor: bigint;
}

/** What pricing needs to know of an asset: the chain configuration's asset, plus the chain it is on. */
export interface PricedAsset {
  caip19: string;
  symbol: string;
  decimals: number;
  /** The ISO 4217 currency a stablecoin is worth one unit of; null for other assets. */
  peg: string | null;
  chainCaip2: string;
}

export interface Quote {
  /** Token minor units, rounded up so the merchant never gets less than the fiat amount. */
  amount: bigint;
  /** Fiat major units per one whole token, exact and in lowest terms; null for a 1:1 peg. */
  rate: { numerator: string; denominator: string } | null;
  source: 'peg' | 'static' | 'chainlink';
  /** Milliseconds since the epoch after which the quote is stale; null when no rate is involved. */
  expiresAt: number | null;
}

export interface Pricing {
  /** The quote for paying `fiat` with `asset` at `now` (ms since the epoch); null when no price is available. */
  quote(fiat: FiatAmount, asset: PricedAsset, now: number): Promise<Quote | null>;
}

/**
 * A chain as pricing sees it: `allChains(chains)` entries fit (chains/index.ts). Without a public client only the
 * static table serves; a chain without feeds (Solana's) has none to read.
 */
export interface PricingChain {
  config: Pick<ConfiguredChain['config'], 'caip2' | 'mode' | 'priceFeeds' | 'sequencerUptimeFeed'>;
  clients?: { public: FeedClient };
}

export interface PricingDeps {
  /** Every chain quotes may be asked for, whatever its namespace. */
  chains: readonly PricingChain[];
  /**
   * `quoteTtlMs` (PAYGATE_QUOTE_TTL_S): how long a quote that involves a rate stays valid. `ratesFile`
   * (PAYGATE_RATES_FILE): pairs over the built-in static table, read once here; unused when `staticRates` is given.
   */
  config: Pick<Config, 'quoteTtlMs' | 'ratesFile'>;
  staticRates?: StaticRates;
  logger?: Pick<Logger, 'warn'>;
  /** How long a feed's round is reused before it is read again. Default 5 s. */
  priceCacheMs?: number;
  /** How long after an L2 sequencer comes back up its prices are still refused. Default 3600 s (Chainlink's advice). */
  sequencerGraceS?: number;
}

export const DEFAULT_PRICE_CACHE_MS = 5_000;
export const DEFAULT_SEQUENCER_GRACE_S = 3_600;

interface Price {
  price: Ratio;
  source: 'static' | 'chainlink';
  /** When the price was read from its source: the quote's life counts from here. */
  readAt: number;
}

const ONE: Ratio = { n: 1n, d: 1n };

function checkInput(fiat: FiatAmount, asset: PricedAsset, now: number): void {
  if (!/^[A-Z]{3}$/.test(fiat.currency)) throw new TypeError(`not an ISO 4217 code: ${fiat.currency}`);
  if (!Number.isInteger(fiat.digits) || fiat.digits < 0) throw new TypeError(`bad minor-unit digits: ${fiat.digits}`);
  if (fiat.minor < 0n) throw new RangeError(`a fiat amount cannot be negative: ${fiat.minor}`);
  if (!Number.isInteger(asset.decimals) || asset.decimals < 0) throw new TypeError(`bad decimals: ${asset.decimals}`);
  if (!Number.isFinite(now)) throw new TypeError(`bad time: ${now}`);
}

/** Test-mode chains without feeds are priced from the static table; every other chain only from its feeds. */
export function usesStaticTable(config: PricingChain['config']): boolean {
  return config.mode === 'test' && Object.keys(config.priceFeeds).length === 0;
}

export function createPricing(deps: PricingDeps): Pricing {
  const staticRates = deps.staticRates ?? loadStaticRates(deps.config.ratesFile);
  const ttlMs = deps.config.quoteTtlMs;
  const chains = new Map<string, PricingChain>(deps.chains.map((chain) => [chain.config.caip2, chain]));
  // A quote lives from its price's read, so a cached read may use at most half the TTL: a quote is never issued
  // with less than half its life left (or, with a TTL under the cache time, already expired).
  const reader = createFeedReader(Math.min(deps.priceCacheMs ?? DEFAULT_PRICE_CACHE_MS, Math.floor(ttlMs / 2)));
  const graceS = deps.sequencerGraceS ?? DEFAULT_SEQUENCER_GRACE_S;
  const warn = (fields: Record<string, unknown>, message: string) => deps.logger?.warn(fields, message);

  function staticPrice(base: string, quote: string, now: number): Price | null {
    const route = findRoute(staticRates.keys(), base, quote);
    if (!route) return null;
    return { price: routePrice(route, (pair) => staticRates.get(pair)!), source: 'static', readAt: now };
  }

  async function chainlinkPrice(chain: PricingChain, base: string, quote: string, now: number): Promise<Price | null> {
    const { caip2, priceFeeds, sequencerUptimeFeed } = chain.config;
    const route = findRoute(Object.keys(priceFeeds), base, quote);
    if (!route) return null;
    const at = { chain: caip2, pair: `${base}/${quote}` };
    const client = chain.clients?.public;
    if (!client) {
      warn(at, 'price feeds configured on a chain without a client; no quote');
      return null;
    }
    const feeds = route.map((step) => ({ pair: step.pair, ...priceFeeds[step.pair]! }));
    let sequencer: CachedRound | null;
    let rounds: CachedRound[];
    try {
      [sequencer, rounds] = await Promise.all([
        sequencerUptimeFeed ? reader.read(caip2, client, sequencerUptimeFeed, now) : null,
        Promise.all(feeds.map((feed) => reader.read(caip2, client, feed.address, now))),
      ]);
    } catch (err) {
      warn({ ...at, feeds: feeds.map((f) => f.pair), err: shortError(err) }, 'price feed read failed; no quote');
      return null;
    }
    const nowS = BigInt(Math.floor(now / 1000));
    if (sequencer) {
      const reason = refuseSequencer(sequencer.round, graceS, nowS);
      if (reason) {
        warn({ ...at, feed: sequencerUptimeFeed }, `sequencer uptime feed refused: ${reason}; no quote`);
        return null;
      }
    }
    const byPair = new Map<string, Ratio>();
    for (const [i, feed] of feeds.entries()) {
      const { round } = rounds[i]!;
      const reason = refusePriceRound(round, feed.heartbeatS, nowS);
      if (reason) {
        warn({ ...at, feed: feed.pair, address: feed.address }, `price feed refused: ${reason}; no quote`);
        return null;
      }
      byPair.set(feed.pair, scaled(round.answer, round.decimals));
    }
    return {
      price: routePrice(route, (pair) => byPair.get(pair)!),
      source: 'chainlink',
      readAt: Math.min(...rounds.map((r) => r.readAt)),
    };
  }

  return {
    async quote(fiat, asset, now) {
      checkInput(fiat, asset, now);
      if (asset.peg === fiat.currency) {
        return {
          amount: tokenAmount(fiat.minor, fiat.digits, ONE, asset.decimals),
          rate: null,
          source: 'peg',
          expiresAt: null,
        };
      }
      const chain = chains.get(asset.chainCaip2);
      if (!chain) {
        warn({ chain: asset.chainCaip2, asset: asset.caip19 }, 'asset on a chain pricing does not know; no quote');
        return null;
      }
      // A stablecoin is priced as its currency: EURC for a USD payment is EUR in USD.
      const base = asset.peg ?? asset.symbol;
      const priced = usesStaticTable(chain.config)
        ? staticPrice(base, fiat.currency, now)
        : await chainlinkPrice(chain, base, fiat.currency, now);
      if (!priced) return null;
      const { price, source, readAt } = priced;
      return {
        amount: tokenAmount(fiat.minor, fiat.digits, price, asset.decimals),
        rate: { numerator: price.n.toString(), denominator: price.d.toString() },
        source,
        // From when the price was read, so a cached price never lives longer than one read now would.
        expiresAt: readAt + ttlMs,
      };
    },
  };
}
