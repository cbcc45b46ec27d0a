/**
 * How long quotes live: PAYGATE_QUOTE_TTL_S from the configuration, applied through an injected clock (the `now`
 * of each call), never by waiting.
 */
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '@paygate/server';
import { createPricing, type PricedAsset } from '../../server/src/quotes/index.js';

const CHAIN = 'eip155:31337';
const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);
const ether: PricedAsset = { caip19: `${CHAIN}/slip44:60`, symbol: 'ETH', decimals: 18, peg: null, chainCaip2: CHAIN };
const tusd: PricedAsset = { caip19: `${CHAIN}/erc20:0x01`, symbol: 'TUSD', decimals: 6, peg: 'USD', chainCaip2: CHAIN };
const USD_5 = { currency: 'USD', digits: 2, minor: 500n };

function pricingWith(env: Record<string, string>) {
  return createPricing({
    chains: [{ config: { caip2: CHAIN, mode: 'test', priceFeeds: {}, sequencerUptimeFeed: null } }],
    config: loadConfig(env),
  });
}

describe('quotes.expiry', () => {
  it('defaults to 300 s', async () => {
    assert.equal(loadConfig({}).quoteTtlMs, 300_000);
    assert.equal((await pricingWith({}).quote(USD_5, ether, NOW))!.expiresAt, NOW + 300_000);
  });

  it('follows PAYGATE_QUOTE_TTL_S, counted from the time of each quote', async () => {
    const p = pricingWith({ PAYGATE_QUOTE_TTL_S: '45' });
    assert.equal((await p.quote(USD_5, ether, NOW))!.expiresAt, NOW + 45_000);
    assert.equal((await p.quote(USD_5, ether, NOW + 123_456))!.expiresAt, NOW + 123_456 + 45_000);
  });

  it('never expires a stablecoin of the payment currency, which involves no rate', async () => {
    const quote = await pricingWith({ PAYGATE_QUOTE_TTL_S: '1' }).quote(USD_5, tusd, NOW);
    assert.equal(quote!.expiresAt, null);
    // The same token for another currency involves a rate, and expires.
    const inEuros = await pricingWith({ PAYGATE_QUOTE_TTL_S: '1' }).quote({ ...USD_5, currency: 'EUR' }, tusd, NOW);
    assert.equal(inEuros!.expiresAt, NOW + 1_000);
  });

  it('refuses a TTL that is not a whole number of seconds from 1 to 3600', () => {
    assert.equal(loadConfig({ PAYGATE_QUOTE_TTL_S: '3600' }).quoteTtlMs, 3_600_000);
    for (const bad of ['0', '3601', '1.5', '-5', 'five', '1e2']) {
      assert.throws(
        () => loadConfig({ PAYGATE_QUOTE_TTL_S: bad }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError, String(err));
          assert.equal(err.variable, 'PAYGATE_QUOTE_TTL_S');
          assert.match(err.message, /between 1 and 3600/);
          return true;
        },
        bad,
      );
    }
  });
});
