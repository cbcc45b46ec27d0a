/**
 * The price configuration of the chain presets and chain files: every live asset is priceable in USD and EUR from
 * its chain's feeds, the L2s name their sequencer uptime feed, the testnets fall back to the static table, and the
 * new fields are validated like the rest of a chain file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@paygate/server';
import { loadChainsFile, loadChainsSetting } from '../../server/src/chains/chainsSetting.js';
import { BUILT_IN_RATES } from '../../server/src/quotes/index.js';
import { findRoute } from '../../server/src/quotes/routes.js';

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const env: Record<string, string> = Object.fromEntries([
  ['PAYGATE_RELAYER_KEY', key],
  ['PAYGATE_TESTNET_RELAYER_KEY', key],
  ...[
    'ETHEREUM',
    'BASE',
    'ARBITRUM',
    'OPTIMISM',
    'POLYGON',
    'SEPOLIA',
    'BASE_SEPOLIA',
    'ARBITRUM_SEPOLIA',
    'OPTIMISM_SEPOLIA',
    'POLYGON_AMOY',
  ].map((n) => [`PAYGATE_RPC_${n}`, 'https://rpc.example']),
]);

describe('quotes.presets', () => {
  const live = loadChainsSetting('live', env);
  const testnet = loadChainsSetting('testnet', env);

  it('peg the dollar and euro stablecoins, and not the native coins', () => {
    for (const chain of [...live, ...testnet]) {
      for (const asset of chain.assets) {
        const expected = asset.address === null ? null : asset.symbol === 'EURC' ? 'EUR' : 'USD';
        assert.equal(asset.peg, expected, `${asset.caip19} ${asset.symbol}`);
      }
    }
  });

  it('price every live asset in USD and EUR from its own chain’s feeds', () => {
    for (const chain of live) {
      assert.ok(Object.keys(chain.priceFeeds).length > 0, chain.name);
      for (const asset of chain.assets) {
        for (const currency of ['USD', 'EUR']) {
          if (asset.peg === currency) continue;
          const route = findRoute(Object.keys(chain.priceFeeds), asset.peg ?? asset.symbol, currency);
          assert.ok(route, `${chain.name}: ${asset.symbol} in ${currency}`);
        }
      }
    }
  });

  it('refuse L2 prices while the sequencer is down: Base, Arbitrum and OP name their uptime feed', () => {
    assert.deepEqual(
      live.map((c) => [c.name, c.sequencerUptimeFeed]),
      [
        ['Ethereum', null],
        ['Base', '0xBCF85224fc0756B9Fa45aA7892530B47e10b6433'],
        ['Arbitrum One', '0xFdB631F5EE196F0ed6FAa767959853A9F217697D'],
        ['OP Mainnet', '0x371EAD81c9102C9BF4874A9075FFFf170F2Ee389'],
        ['Polygon', null],
      ],
    );
    const ethereum = live[0]!;
    assert.deepEqual(ethereum.priceFeeds['ETH/USD'], {
      address: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419',
      heartbeatS: 3660,
    });
  });

  it('leave the testnets without feeds, priced from the static table in USD and EUR', () => {
    for (const chain of testnet) {
      assert.deepEqual(chain.priceFeeds, {}, chain.name);
      assert.equal(chain.sequencerUptimeFeed, null);
      for (const asset of chain.assets) {
        for (const currency of ['USD', 'EUR']) {
          if (asset.peg === currency) continue;
          const route = findRoute(Object.keys(BUILT_IN_RATES), asset.peg ?? asset.symbol, currency);
          assert.ok(route, `${chain.name}: ${asset.symbol} in ${currency}`);
        }
      }
    }
  });

  describe('a chain file', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'paygate-feeds-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const feed = { address: '0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70', heartbeatS: 1260 };
    function chain(change: (c: Record<string, unknown>, asset: Record<string, unknown>) => void) {
      const asset: Record<string, unknown> = {
        caip19: 'eip155:8453/slip44:60',
        address: null,
        decimals: 18,
        symbol: 'ETH',
        name: 'Ether',
        networkName: 'Base',
        eip3009: false,
      };
      const c: Record<string, unknown> = {
        caip2: 'eip155:8453',
        name: 'Base',
        mode: 'live',
        rpcUrl: 'https://rpc.example',
        confirmations: 10,
        relayerKey: key,
        assets: [asset],
      };
      change(c, asset);
      const path = join(dir, `chain-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(path, JSON.stringify({ chains: [c] }));
      return path;
    }

    it('defaults to no feeds, no sequencer feed and no peg, and checksums feed addresses', () => {
      const [bare] = loadChainsFile(
        chain(() => {}),
        {},
      );
      assert.deepEqual(bare!.priceFeeds, {});
      assert.equal(bare!.sequencerUptimeFeed, null);
      assert.equal(bare!.assets[0]!.peg, null);
      const [priced] = loadChainsFile(
        chain((c) => {
          c.priceFeeds = { 'ETH/USD': feed };
          c.sequencerUptimeFeed = '0xbcf85224fc0756b9fa45aa7892530b47e10b6433';
        }),
        {},
      );
      assert.equal(priced!.priceFeeds['ETH/USD']!.address, '0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70');
      assert.equal(priced!.sequencerUptimeFeed, '0xBCF85224fc0756B9Fa45aA7892530B47e10b6433');
    });

    it('names the field of a bad peg, pair, heartbeat or feed address', () => {
      const expectError = (path: string, pattern: RegExp) =>
        assert.throws(
          () => loadChainsFile(path, {}),
          (err: unknown) => {
            assert.ok(err instanceof ConfigError, String(err));
            assert.equal(err.variable, 'PAYGATE_CHAINS');
            assert.match(err.message, pattern);
            return true;
          },
        );
      expectError(
        chain((_, a) => (a.peg = 'usd')),
        /chains\[0\]\.assets\[0\]\.peg: must be an active ISO 4217/,
      );
      expectError(
        chain((_, a) => (a.peg = 'XAU')),
        /chains\[0\]\.assets\[0\]\.peg: must be an active ISO 4217/,
      );
      expectError(
        chain((c) => (c.priceFeeds = { ETHUSD: feed })),
        /chains\[0\]\.priceFeeds\.ETHUSD: must be a pair BASE\/QUOTE/,
      );
      expectError(
        chain((c) => (c.priceFeeds = { 'USD/USD': feed })),
        /chains\[0\]\.priceFeeds\.USD\/USD: a pair needs two different sides/,
      );
      expectError(
        chain((c) => (c.priceFeeds = { 'ETH/USD': { ...feed, heartbeatS: 0 } })),
        /chains\[0\]\.priceFeeds\.ETH\/USD\.heartbeatS: /,
      );
      expectError(
        chain((c) => (c.priceFeeds = { 'ETH/USD': { address: feed.address } })),
        /chains\[0\]\.priceFeeds\.ETH\/USD\.heartbeatS: /,
      );
      expectError(
        chain((c) => (c.priceFeeds = { 'ETH/USD': { ...feed, address: '0x1234' } })),
        /chains\[0\]\.priceFeeds\.ETH\/USD\.address: must be an address/,
      );
      expectError(
        chain((c) => (c.sequencerUptimeFeed = 'down')),
        /chains\[0\]\.sequencerUptimeFeed: must be an address/,
      );
    });
  });
});
