/**
 * The static table of test mode: which chains it prices, the built-in pairs, and PAYGATE_RATES_FILE over them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@paygate/server';
import { ANVIL_KEYS, CANONICAL_MULTICALL3, LOCAL_CHAIN_ID } from '@paygate/devchain';
import { localChainConfig } from '../../server/src/chains/eip155/localConfig.js';
import { createPricing, loadStaticRates, type PricedAsset, type PricingChain } from '../../server/src/quotes/index.js';
import { captureLogs } from '../helpers/logs.js';

const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);
const USD_12_50 = { currency: 'USD', digits: 2, minor: 1250n };
const anvil = {
  rpcUrl: 'http://127.0.0.1:9',
  chainId: LOCAL_CHAIN_ID,
  multicall3: CANONICAL_MULTICALL3,
  keys: ANVIL_KEYS,
};
const local = localChainConfig(anvil, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
const localAssets = local.assets.map((a): PricedAsset => ({ ...a, chainCaip2: local.caip2 }));
const [localEth, localTusd] = [localAssets[0]!, localAssets[1]!];

function ether(chainCaip2: string): PricedAsset {
  return { caip19: `${chainCaip2}/slip44:60`, symbol: 'ETH', decimals: 18, peg: null, chainCaip2 };
}

describe('quotes.static', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-rates-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  let files = 0;
  function ratesFile(content: unknown): string {
    const path = join(dir, `rates-${++files}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  }

  function pricing(chains: PricingChain[], ratesFile: string | null = null) {
    return createPricing({ chains: chains, config: { quoteTtlMs: 300_000, ratesFile } });
  }

  describe('on the local chain (test mode, no feeds)', () => {
    const p = pricing([{ config: local }]);

    it('prices the native coin from the built-in ETH/USD (3000) and TUSD at its USD peg', async () => {
      assert.deepEqual(await p.quote(USD_12_50, localEth, NOW), {
        amount: 4_166_666_666_666_667n,
        rate: { numerator: '3000', denominator: '1' },
        source: 'static',
        expiresAt: NOW + 300_000,
      });
      assert.deepEqual(await p.quote(USD_12_50, localTusd, NOW), {
        amount: 12_500_000n,
        rate: null,
        source: 'peg',
        expiresAt: null,
      });
    });

    it('prices through USD when the table has no direct pair (ETH in EUR, TUSD in EUR and JPY)', async () => {
      // ETH/EUR = 3000 / 1.08 = 2777.77…; €25.00 of it is 0.009 ETH exactly.
      const eth = await p.quote({ currency: 'EUR', digits: 2, minor: 2500n }, localEth, NOW);
      assert.equal(eth!.amount, 9_000_000_000_000_000n);
      assert.deepEqual(eth!.rate, { numerator: '25000', denominator: '9' });
      // ¥1500 at 150 JPY per TUSD is 10 TUSD.
      const tusd = await p.quote({ currency: 'JPY', digits: 0, minor: 1500n }, localTusd, NOW);
      assert.deepEqual(tusd, {
        amount: 10_000_000n,
        rate: { numerator: '150', denominator: '1' },
        source: 'static',
        expiresAt: NOW + 300_000,
      });
    });

    it('has no quote for a currency the table cannot reach', async () => {
      assert.equal(await p.quote({ currency: 'CHF', digits: 2, minor: 1000n }, localEth, NOW), null);
      assert.equal(await p.quote({ currency: 'CHF', digits: 2, minor: 1000n }, localTusd, NOW), null);
    });
  });

  it('never prices a live chain from the table, nor a test chain that has feeds, nor an unknown chain', async () => {
    const logs = captureLogs();
    const base = { caip2: 'eip155:8453' as const, priceFeeds: {}, sequencerUptimeFeed: null };
    const withFeeds = {
      caip2: 'eip155:84532' as const,
      mode: 'test' as const,
      priceFeeds: { 'BTC/USD': { address: local.multicall3, heartbeatS: 60 } },
      sequencerUptimeFeed: null,
    };
    const p = createPricing({
      chains: [{ config: { ...base, mode: 'live' } }, { config: withFeeds }],
      config: { quoteTtlMs: 300_000, ratesFile: null },
      logger: logs.logger,
    });
    assert.equal(await p.quote(USD_12_50, ether('eip155:8453'), NOW), null);
    assert.equal(await p.quote(USD_12_50, ether('eip155:84532'), NOW), null);
    assert.equal(await p.quote(USD_12_50, ether('eip155:1'), NOW), null);
    assert.match(logs.text(), /asset on a chain pricing does not know/);
    // The peg needs no price, so it quotes on any chain.
    const usdc = { ...ether('eip155:8453'), symbol: 'USDC', decimals: 6, peg: 'USD' };
    assert.equal((await p.quote(USD_12_50, usdc, NOW))!.amount, 12_500_000n);
  });

  describe('PAYGATE_RATES_FILE', () => {
    it('overrides built-in pairs and adds new ones', async () => {
      const file = ratesFile({ 'ETH/USD': '2500.50', 'CHF/USD': '1.25' });
      const p = pricing([{ config: local }], file);
      const eth = await p.quote(USD_12_50, localEth, NOW);
      // 12.50 / 2500.5 ETH = 4999000199960007.99… wei.
      assert.equal(eth!.amount, 4_999_000_199_960_008n);
      assert.deepEqual(eth!.rate, { numerator: '5001', denominator: '2' });
      // CHF 10.00 at 1.25 USD per CHF = 12.5 TUSD.
      const tusd = await p.quote({ currency: 'CHF', digits: 2, minor: 1000n }, localTusd, NOW);
      assert.equal(tusd!.amount, 12_500_000n);
      // Built-in pairs the file does not name stay.
      assert.ok(await p.quote({ currency: 'EUR', digits: 2, minor: 100n }, localTusd, NOW));
    });

    it('replaces a built-in pair given the other way round', async () => {
      const rates = loadStaticRates(ratesFile({ 'USD/ETH': '0.0005' }));
      assert.equal(rates.has('ETH/USD'), false);
      const p = createPricing({
        chains: [{ config: local }],
        config: { quoteTtlMs: 300_000, ratesFile: null },
        staticRates: rates,
      });
      // 0.0005 ETH per USD is 2000 USD per ETH: $12.50 is 0.00625 ETH.
      assert.equal((await p.quote(USD_12_50, localEth, NOW))!.amount, 6_250_000_000_000_000n);
    });

    it('is refused, naming the variable and the problem, when it is not a table of decimal strings', () => {
      const expectError = (file: string, pattern: RegExp) =>
        assert.throws(
          () => pricing([{ config: local }], file),
          (err: unknown) => {
            assert.ok(err instanceof ConfigError, String(err));
            assert.equal(err.variable, 'PAYGATE_RATES_FILE');
            assert.match(err.message, pattern);
            return true;
          },
        );
      expectError(join(dir, 'missing.json'), /cannot be read \(ENOENT\)/);
      expectError(ratesFile('{"ETH/USD": '), /not valid JSON/);
      expectError(ratesFile(['ETH/USD', '3000']), /must be a JSON object/);
      expectError(ratesFile({ 'ETH/USD': 3000.5 }), /"ETH\/USD" must be a positive decimal string/);
      expectError(ratesFile({ 'ETH/USD': '-1' }), /"ETH\/USD" must be a positive decimal string/);
      expectError(ratesFile({ 'ETH/USD': '0' }), /"ETH\/USD" must be a positive decimal string/);
      expectError(ratesFile({ ETHUSD: '3000' }), /"ETHUSD" is not a pair/);
      expectError(ratesFile({ 'USD/USD': '1' }), /"USD\/USD" is not a pair/);
    });

    it('is read from the environment by the configuration', () => {
      assert.equal(loadConfig({}).ratesFile, null);
      assert.equal(loadConfig({ PAYGATE_RATES_FILE: '/etc/paygate/rates.json' }).ratesFile, '/etc/paygate/rates.json');
    });
  });
});
