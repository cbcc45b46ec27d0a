/**
 * Prices from Chainlink-style feeds read on the run's local chain: TestPriceFeed contracts deployed on the shared
 * anvil stand in for Chainlink's, and every test reverts the chain afterwards. Time is the injected `now`, never
 * the wall clock or a sleep.
 */
import assert from 'node:assert/strict';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import { createPricing, type PricedAsset, type PricingChain } from '../../server/src/quotes/index.js';
import { sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { chainWithFeeds, deployFeed, seconds, type TestFeed } from './feeds.js';

const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);
const TTL = 300_000;

describe('quotes.chainlink', function () {
  useChainSnapshots();

  let chain: LocalEvmChain;
  let eth: PricedAsset;
  let tusd: PricedAsset;
  before(async () => {
    chain = await sharedLocalChain();
    const priced = chain.config.assets.map((a): PricedAsset => ({ ...a, chainCaip2: chain.config.caip2 }));
    [eth, tusd] = [priced[0]!, priced[1]!];
  });

  function pricing(priced: PricingChain, priceCacheMs?: number) {
    return createPricing({ chains: [priced], config: { quoteTtlMs: TTL, ratesFile: null }, priceCacheMs });
  }

  async function ethUsd(answer = 3000_12345678n, updatedAt = seconds(NOW) - 60n): Promise<TestFeed> {
    const feed = await deployFeed(chain, 8, 'ETH / USD');
    await feed.setAnswer(answer, updatedAt);
    return feed;
  }

  it('quotes from the latest round, exactly, rounded up, expiring a TTL after the read', async () => {
    const feed = await ethUsd();
    const p = pricing(chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 3600 } }));
    // $12.50 at 3000.12345678 USD per ETH = 4166495205972661.6… wei.
    assert.deepEqual(await p.quote({ currency: 'USD', digits: 2, minor: 1250n }, eth, NOW), {
      amount: 4_166_495_205_972_662n,
      rate: { numerator: '150006172839', denominator: '50000000' },
      source: 'chainlink',
      expiresAt: NOW + TTL,
    });
  });

  it('never issues a quote with less than half its TTL left, however short the TTL against the cache', async () => {
    const feed = await ethUsd();
    const shortTtl = 2_000;
    const p = createPricing({
      chains: [chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 3600 } })],
      config: { quoteTtlMs: shortTtl, ratesFile: null },
    });
    const usd = { currency: 'USD', digits: 2, minor: 1250n };
    await p.quote(usd, eth, NOW);
    for (const later of [NOW + 999, NOW + 1_000, NOW + 3_000]) {
      const quote = await p.quote(usd, eth, later);
      assert.ok(
        quote!.expiresAt! - later > shortTtl / 2,
        `quote at +${later - NOW} ms expires at +${quote!.expiresAt! - NOW}`,
      );
    }
  });

  it('uses the decimals the feed reports', async () => {
    const feed = await deployFeed(chain, 18, 'ETH / USD');
    await feed.setAnswer(2500n * 10n ** 18n, seconds(NOW));
    const p = pricing(chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 3600 } }));
    const quote = await p.quote({ currency: 'USD', digits: 2, minor: 1000n }, eth, NOW);
    assert.equal(quote!.amount, 4_000_000_000_000_000n);
    assert.deepEqual(quote!.rate, { numerator: '2500', denominator: '1' });
  });

  describe('cross rates', () => {
    let eurUsd: TestFeed;
    let priced: PricingChain;
    beforeEach(async () => {
      eurUsd = await deployFeed(chain, 8, 'EUR / USD');
      await eurUsd.setAnswer(1_08250000n, seconds(NOW) - 600n);
      const eth = await ethUsd(3000_50000000n);
      priced = chainWithFeeds(chain, {
        'ETH/USD': { feed: eth, heartbeatS: 3600 },
        'EUR/USD': { feed: eurUsd, heartbeatS: 86_400 },
      });
    });

    it('prices ETH in euros through two feeds (ETH/USD ÷ EUR/USD), exactly', async () => {
      const quote = await pricing(priced).quote({ currency: 'EUR', digits: 2, minor: 9999n }, eth, NOW);
      // 3000.5 / 1.0825 = 1200200/433 EUR per ETH; €99.99 is 36073712714547575.4… wei.
      assert.deepEqual(quote, {
        amount: 36_073_712_714_547_576n,
        rate: { numerator: '1200200', denominator: '433' },
        source: 'chainlink',
        expiresAt: NOW + TTL,
      });
    });

    it('prices a euro stablecoin in dollars from EUR/USD, and a dollar stablecoin in euros from its inverse', async () => {
      const p = pricing(priced);
      const eurc: PricedAsset = { ...tusd, symbol: 'EURC', peg: 'EUR' };
      const inDollars = await p.quote({ currency: 'USD', digits: 2, minor: 1250n }, eurc, NOW);
      // $12.50 at 1.0825 USD per EURC = 11.5473441… EURC.
      assert.equal(inDollars!.amount, 11_547_345n);
      assert.deepEqual(inDollars!.rate, { numerator: '433', denominator: '400' });
      const inEuros = await p.quote({ currency: 'EUR', digits: 2, minor: 1250n }, tusd, NOW);
      // €12.50 at 400/433 EUR per TUSD = exactly 13.53125 TUSD.
      assert.equal(inEuros!.amount, 13_531_250n);
      assert.deepEqual(inEuros!.rate, { numerator: '400', denominator: '433' });
      assert.equal(inEuros!.source, 'chainlink');
    });

    it('has no quote when a feed of the route is missing', async () => {
      const onlyEur = chainWithFeeds(chain, { 'EUR/USD': { feed: eurUsd, heartbeatS: 86_400 } });
      assert.equal(await pricing(onlyEur).quote({ currency: 'EUR', digits: 2, minor: 100n }, eth, NOW), null);
      assert.equal(await pricing(onlyEur).quote({ currency: 'GBP', digits: 2, minor: 100n }, tusd, NOW), null);
    });
  });

  describe('the price cache', () => {
    it('reuses a round for the cache period, dating quotes from the read, then reads again', async () => {
      const feed = await ethUsd(3000_00000000n);
      const p = pricing(chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 3600 } }), 5_000);
      const usd = { currency: 'USD', digits: 2, minor: 300_000n };
      const first = await p.quote(usd, eth, NOW);
      assert.equal(first!.amount, 10n ** 18n);

      await feed.setAnswer(2000_00000000n, seconds(NOW));
      const cached = await p.quote(usd, eth, NOW + 4_999);
      assert.equal(cached!.amount, 10n ** 18n, 'the cached round');
      assert.equal(cached!.expiresAt, NOW + TTL, 'a TTL from the read, not from now');

      const fresh = await p.quote(usd, eth, NOW + 5_000);
      assert.equal(fresh!.amount, 15n * 10n ** 17n, 'the new round: 3000 USD at 2000 USD/ETH');
      assert.equal(fresh!.expiresAt, NOW + 5_000 + TTL);
    });

    it('still checks a cached round against the time of each quote', async () => {
      const feed = await ethUsd(3000_00000000n, seconds(NOW) - 58n);
      const p = pricing(chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 60 } }), 5_000);
      const usd = { currency: 'USD', digits: 2, minor: 100n };
      assert.ok(await p.quote(usd, eth, NOW), 'fresh at NOW: 58 s old');
      assert.equal(await p.quote(usd, eth, NOW + 3_000), null, 'stale 3 s later: 61 s old, though cached');
    });

    it('reads each feed once for quotes made together, and again once the period is over', async () => {
      const feed = await ethUsd(3000_00000000n);
      let reads = 0;
      const counting = new Proxy(chain.clients.public, {
        get(target, property, receiver) {
          if (property !== 'multicall') return Reflect.get(target, property, receiver) as unknown;
          return (...args: Parameters<typeof target.multicall>) => {
            reads += 1;
            return target.multicall(...args);
          };
        },
      });
      const priced = chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 3600 } });
      const p = pricing({ ...priced, clients: { public: counting } }, 5_000);
      const usd = { currency: 'USD', digits: 2, minor: 300_000n };
      const together = await Promise.all([p.quote(usd, eth, NOW), p.quote(usd, eth, NOW), p.quote(usd, eth, NOW)]);
      assert.deepEqual(
        together.map((q) => q!.amount),
        [10n ** 18n, 10n ** 18n, 10n ** 18n],
      );
      assert.equal(reads, 1);
      await p.quote(usd, eth, NOW + 4_999);
      assert.equal(reads, 1);
      await p.quote(usd, eth, NOW + 5_000);
      assert.equal(reads, 2);
      // A clock that moved back cannot date the cached round: read again.
      await p.quote(usd, eth, NOW);
      assert.equal(reads, 3);
    });
  });
});
