import assert from 'node:assert/strict';
import { createPricing } from '../../server/src/quotes/index.js';

const devnet = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const mainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);

describe('quotes on Solana chains', () => {
  const pricing = createPricing({
    chains: [
      { config: { caip2: devnet, mode: 'test', priceFeeds: {}, sequencerUptimeFeed: null } },
      { config: { caip2: mainnet, mode: 'live', priceFeeds: {}, sequencerUptimeFeed: null } },
    ],
    config: { quoteTtlMs: 300_000, ratesFile: null },
  });
  const usd = { currency: 'USD', digits: 2, minor: 1250n };
  const sol = (chain: string) => ({
    caip19: `${chain}/slip44:501`,
    symbol: 'SOL',
    decimals: 9,
    peg: null,
    chainCaip2: chain,
  });

  it('prices SOL from the static table on a test chain, with a quote expiry', async () => {
    const quote = await pricing.quote(usd, sol(devnet), NOW);
    assert.equal(quote?.source, 'static');
    assert.ok(quote!.amount > 0n);
    assert.equal(quote!.expiresAt, NOW + 300_000);
  });

  it('offers no price for SOL on a live chain (no feed), while pegged tokens stay 1:1', async () => {
    assert.equal(await pricing.quote(usd, sol(mainnet), NOW), null);
    const usdc = {
      caip19: `${mainnet}/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v`,
      symbol: 'USDC',
      decimals: 6,
      peg: 'USD',
      chainCaip2: mainnet,
    };
    assert.deepEqual(await pricing.quote(usd, usdc, NOW), {
      amount: 12_500_000n,
      rate: null,
      source: 'peg',
      expiresAt: null,
    });
  });
});
