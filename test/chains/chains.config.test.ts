/**
 * The chain configuration loader: the shipped presets, placeholders from the environment, and validation errors
 * that name the variable, the file and the field.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@paygate/server';
import {
  CANONICAL_MULTICALL3,
  loadChainsFile,
  loadChainsSetting,
  loadSolanaChainsSetting,
  PRESETS,
  type EvmChainConfig,
} from '../../server/src/chains/chainsSetting.js';

const relayerKey = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** Every variable the presets reference, as an operator would set them. */
const presetEnv: Record<string, string> = {
  PAYGATE_RELAYER_KEY: relayerKey,
  PAYGATE_TESTNET_RELAYER_KEY: relayerKey,
  PAYGATE_RPC_ETHEREUM: 'https://eth.rpc.example/v2/KEY',
  PAYGATE_RPC_BASE: 'https://base.rpc.example',
  PAYGATE_RPC_ARBITRUM: 'https://arb.rpc.example',
  PAYGATE_RPC_OPTIMISM: 'https://op.rpc.example',
  PAYGATE_RPC_POLYGON: 'https://polygon.rpc.example',
  PAYGATE_RPC_SEPOLIA: 'https://sepolia.rpc.example',
  PAYGATE_RPC_BASE_SEPOLIA: 'https://base-sepolia.rpc.example',
  PAYGATE_RPC_ARBITRUM_SEPOLIA: 'https://arb-sepolia.rpc.example',
  PAYGATE_RPC_OPTIMISM_SEPOLIA: 'https://op-sepolia.rpc.example',
  PAYGATE_RPC_POLYGON_AMOY: 'https://amoy.rpc.example',
};

function withoutVar(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(presetEnv).filter(([k]) => k !== name));
}

function validChain(): Record<string, unknown> {
  return {
    caip2: 'eip155:8453',
    name: 'Base',
    mode: 'live',
    rpcUrl: '${PAYGATE_RPC_BASE}',
    confirmations: 10,
    relayerKey: '${PAYGATE_RELAYER_KEY}',
    assets: [
      {
        caip19: 'eip155:8453/slip44:60',
        address: null,
        decimals: 18,
        symbol: 'ETH',
        name: 'Ether',
        iconUrl: null,
        networkIconUrl: null,
        networkName: 'Base',
        eip3009: false,
      },
      {
        caip19: 'eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
        address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
        decimals: 6,
        symbol: 'USDC',
        name: 'USD Coin',
        iconUrl: 'https://icons.example/usdc.svg',
        networkIconUrl: null,
        networkName: 'Base',
        eip3009: true,
      },
    ],
  };
}

describe('chains.config', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-chains-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  let files = 0;
  function file(doc: unknown): string {
    const path = join(dir, `chains-${++files}.json`);
    writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return path;
  }

  /** Loading fails with a ConfigError for PAYGATE_CHAINS whose message matches every pattern. */
  function expectError(load: () => unknown, ...patterns: RegExp[]): string {
    let message = '';
    assert.throws(load, (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
      assert.equal(err.variable, 'PAYGATE_CHAINS');
      for (const p of patterns) assert.match(err.message, p);
      message = err.message;
      return true;
    });
    return message;
  }

  describe('the presets', () => {
    it('load the five mainnets in live mode, with placeholders resolved from the environment', () => {
      const chains = loadChainsSetting('live', presetEnv);
      assert.deepEqual(
        chains.map((c) => [c.caip2, c.name, c.mode]),
        [
          ['eip155:1', 'Ethereum', 'live'],
          ['eip155:8453', 'Base', 'live'],
          ['eip155:42161', 'Arbitrum One', 'live'],
          ['eip155:10', 'OP Mainnet', 'live'],
          ['eip155:137', 'Polygon', 'live'],
        ],
      );
      const base = chains[1]!;
      assert.equal(base.rpcUrl, 'https://base.rpc.example');
      assert.equal(base.relayerKey, relayerKey);
      assert.equal(base.multicall3, CANONICAL_MULTICALL3);
      assert.equal(chains[0]!.rpcUrl, 'https://eth.rpc.example/v2/KEY');
    });

    it('load the five testnets in test mode', () => {
      const chains = loadChainsSetting('testnet', presetEnv);
      assert.deepEqual(
        chains.map((c) => [c.caip2, c.mode]),
        [
          ['eip155:11155111', 'test'],
          ['eip155:84532', 'test'],
          ['eip155:421614', 'test'],
          ['eip155:11155420', 'test'],
          ['eip155:80002', 'test'],
        ],
      );
    });

    it('list the native coin and Circle tokens with EIP-3009, Tether without', () => {
      const all: EvmChainConfig[] = loadChainsSetting('live,testnet', presetEnv);
      assert.equal(all.length, 10);
      for (const chain of all) {
        const native = chain.assets.filter((a) => a.address === null);
        assert.equal(native.length, 1, `${chain.caip2} has one native coin`);
        for (const asset of chain.assets) {
          const expected = ['USDC', 'EURC'].includes(asset.symbol);
          assert.equal(asset.eip3009, expected, `${asset.caip19} ${asset.symbol}`);
          if (asset.address) assert.equal(asset.caip19, `${chain.caip2}/erc20:${asset.address}`);
        }
        assert.ok(
          chain.assets.some((a) => a.symbol === 'USDC'),
          `${chain.caip2} has USDC`,
        );
      }
      const usdcOnBase = all.find((c) => c.caip2 === 'eip155:8453')!.assets.find((a) => a.symbol === 'USDC')!;
      assert.equal(usdcOnBase.address, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    });

    it('hold no key and no URL, only placeholders', () => {
      for (const path of Object.values(PRESETS)) {
        const doc = JSON.parse(readFileSync(path, 'utf8')) as {
          chains?: { rpcUrl: string; relayerKey: string }[];
          solanaChains?: { rpcUrl: string; feePayerKey: string }[];
        };
        for (const chain of doc.chains ?? []) {
          assert.match(chain.rpcUrl, /^\$\{PAYGATE_RPC_[A-Z_]+\}$/);
          assert.match(chain.relayerKey, /^\$\{PAYGATE_(TESTNET_)?RELAYER_KEY\}$/);
        }
        for (const chain of doc.solanaChains ?? []) {
          assert.match(chain.rpcUrl, /^\$\{PAYGATE_RPC_SOLANA[A-Z_]*\}$/);
          assert.match(chain.feePayerKey, /^\$\{PAYGATE_(TESTNET_)?SOLANA_FEE_PAYER_KEY\}$/);
        }
        assert.ok((doc.chains?.length ?? 0) + (doc.solanaChains?.length ?? 0) > 0, path);
      }
    });

    it('serve Solana mainnet and devnet by their genesis-hash CAIP-2 ids, with their stablecoins and SOL', () => {
      const feePayerKey = '99eUso3aSbE9tqGSTXzo3TLfKb9RkMTURrHKQ1K7Zh3BbeqPevr5E1iCbpTjqHuTFLtfxTTD5ekfVuZFzQyEQf8';
      const env = {
        PAYGATE_RPC_SOLANA: 'https://sol.rpc.example',
        PAYGATE_RPC_SOLANA_DEVNET: 'https://devnet.rpc.example',
        PAYGATE_SOLANA_FEE_PAYER_KEY: feePayerKey,
        PAYGATE_TESTNET_SOLANA_FEE_PAYER_KEY: feePayerKey,
      };
      const [mainnet] = loadSolanaChainsSetting('solana', env);
      const [devnet] = loadSolanaChainsSetting('solana-devnet', env);
      assert.equal(mainnet!.caip2, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
      assert.equal(mainnet!.mode, 'live');
      assert.deepEqual(
        mainnet!.assets.map((a) => [a.symbol, a.peg]),
        [
          ['SOL', null],
          ['USDC', 'USD'],
          ['USDT', 'USD'],
          ['EURC', 'EUR'],
        ],
      );
      assert.equal(devnet!.caip2, 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
      assert.equal(devnet!.mode, 'test');
      assert.deepEqual(loadChainsSetting('solana', env), []);
      expectError(
        () => loadSolanaChainsSetting('solana', { ...env, PAYGATE_SOLANA_FEE_PAYER_KEY: 'not-a-key' }),
        /solanaChains\[0\]\.feePayerKey: must be a 64-byte secret key in base58/,
      );
    });

    it('refuse an unresolved placeholder, naming the field and the variable', () => {
      expectError(
        () => loadChainsSetting('live', withoutVar('PAYGATE_RPC_BASE')),
        /live\.json: chains\[1\]\.rpcUrl: \$\{PAYGATE_RPC_BASE\} is not set/,
      );
      expectError(
        () => loadChainsSetting('testnet', withoutVar('PAYGATE_TESTNET_RELAYER_KEY')),
        /chains\[0\]\.relayerKey: \$\{PAYGATE_TESTNET_RELAYER_KEY\} is not set/,
      );
    });

    it('read a placeholder from its _FILE form (a mounted secret)', () => {
      const keyFile = join(dir, 'relayer.key');
      writeFileSync(keyFile, `${relayerKey}\n`);
      const env = { ...withoutVar('PAYGATE_RELAYER_KEY'), PAYGATE_RELAYER_KEY_FILE: keyFile };
      assert.equal(loadChainsSetting('live', env)[0]!.relayerKey, relayerKey);
    });
  });

  describe('a chain file', () => {
    it('loads, checksumming addresses and defaulting Multicall3 and icons', () => {
      const chain = validChain();
      delete (chain.assets as Record<string, unknown>[])[0]!.iconUrl;
      const [loaded] = loadChainsFile(file({ chains: [chain] }), presetEnv);
      assert.equal(loaded!.chainId, 8453);
      assert.equal(loaded!.namespace, 'eip155');
      assert.equal(loaded!.assets[1]!.address, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
      assert.equal(loaded!.assets[1]!.caip19, 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
      assert.equal(loaded!.assets[0]!.iconUrl, null);
      assert.equal(loaded!.multicall3, CANONICAL_MULTICALL3);
    });

    /** Loads the file made from a valid chain changed by `change`, expecting an error that matches `pattern`. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each case reaches into the document by hand
    function expectFieldError(change: (chain: Record<string, any>) => void, pattern: RegExp): string {
      const chain = validChain();
      change(chain);
      const path = file({ chains: [chain] });
      return expectError(() => loadChainsFile(path, presetEnv), new RegExp(`file ${path}: `), pattern);
    }

    it('names the field of a schema error', () => {
      expectFieldError((c) => delete c.rpcUrl, /chains\[0\]\.rpcUrl: /);
      expectFieldError((c) => (c.rpcUrl = 'ftp://node.example'), /chains\[0\]\.rpcUrl: must be an http\(s\) URL/);
      expectFieldError((c) => (c.assets[1].decimals = -1), /chains\[0\]\.assets\[1\]\.decimals: /);
      expectFieldError((c) => (c.assets[1].decimals = '6'), /chains\[0\]\.assets\[1\]\.decimals: /);
      expectFieldError((c) => (c.confirmations = 0), /chains\[0\]\.confirmations: /);
      expectFieldError((c) => (c.mode = 'prod'), /chains\[0\]\.mode: must be live or test/);
      expectFieldError(
        (c) => (c.caip2 = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'),
        /chains\[0\]\.caip2: must be eip155/,
      );
      expectFieldError((c) => (c.assets[1].eip3009 = undefined), /chains\[0\]\.assets\[1\]\.eip3009: /);
      expectFieldError((c) => (c.assets[1].colour = 'blue'), /chains\[0\]\.assets\[1\]: .*colour/);
      expectFieldError((c) => (c.assets = []), /chains\[0\]\.assets: /);
      expectFieldError(
        (c) => (c.assets[1].address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02914'),
        /chains\[0\]\.assets\[1\]\.address: must be an address/,
      );
    });

    it('names the field of a disagreement between fields', () => {
      expectFieldError(
        (c) => (c.assets[1].caip19 = 'eip155:1/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'),
        /chains\[0\]\.assets\[1\]\.caip19: .* is not on chain eip155:8453/,
      );
      expectFieldError(
        (c) => (c.assets[1].caip19 = 'eip155:8453/erc20:0xdAC17F958D2ee523a2206206994597C13D831ec7'),
        /chains\[0\]\.assets\[1\]\.caip19: the erc20 reference must be the asset's address/,
      );
      expectFieldError((c) => (c.assets[0].decimals = 6), /chains\[0\]\.assets\[0\]\.decimals: .*18 decimals/);
      expectFieldError(
        (c) => (c.assets[0].address = c.assets[1].address),
        /chains\[0\]\.assets\[0\]\.address: must be null/,
      );
      expectFieldError((c) => (c.assets[1].address = null), /chains\[0\]\.assets\[1\]\.address: an erc20 asset needs/);
      expectFieldError(
        (c) => c.assets.push({ ...c.assets[1] }),
        /chains\[0\]\.assets\[2\]: the chain lists this asset twice/,
      );
    });

    it('never shows the relayer key or the RPC URL it refuses', () => {
      const message = expectFieldError(
        (c) => (c.relayerKey = '0x' + 'ab'.repeat(31)),
        /chains\[0\]\.relayerKey: must be a private key/,
      );
      assert.ok(!message.includes('abab'), message);
      const zero = expectFieldError(
        (c) => (c.relayerKey = '0x' + '00'.repeat(32)),
        /chains\[0\]\.relayerKey: is not a valid/,
      );
      assert.ok(!zero.includes('0000'), zero);
      const url = expectFieldError((c) => (c.rpcUrl = 'node.example/secret-key'), /chains\[0\]\.rpcUrl: /);
      assert.ok(!url.includes('secret-key'), url);
    });

    it('accepts placeholders only for PAYGATE_ variables', () => {
      expectFieldError(
        (c) => (c.rpcUrl = 'https://node.example/${AWS_SECRET_ACCESS_KEY}'),
        /chains\[0\]\.rpcUrl: placeholder \$\{AWS_SECRET_ACCESS_KEY\} must name a PAYGATE_ variable/,
      );
    });

    it('refuses a file that is missing, not JSON, or lists a chain twice', () => {
      expectError(() => loadChainsFile(join(dir, 'nope.json'), {}), /cannot be read \(ENOENT\)/);
      expectError(() => loadChainsFile(file('{"chains": ['), {}), /not valid JSON/);
      expectError(
        () => loadChainsFile(file({ chains: [validChain(), validChain()] }), presetEnv),
        /chains\[1\]\.caip2: eip155:8453 is listed twice/,
      );
      expectError(() => loadChainsFile(file({ chain: [] }), presetEnv), /chain/);
    });
  });

  describe('PAYGATE_CHAINS', () => {
    it('combines presets and files, but never the same chain twice', () => {
      const own = file({ chains: [{ ...validChain(), caip2: 'eip155:100', assets: [] }] });
      expectError(() => loadChainsSetting(`testnet,${own}`, presetEnv), /chains\[0\]\.assets/);
      const base = file({ chains: [validChain()] });
      expectError(() => loadChainsSetting(`live,${base}`, presetEnv), /configures eip155:8453 twice/);
      assert.equal(loadChainsSetting(`testnet, ${base}`, presetEnv).length, 6);
    });

    it('refuses local combined with other entries, and an empty list', () => {
      expectError(() => loadChainsSetting('local,live', presetEnv), /local starts its own chain/);
      expectError(() => loadChainsSetting(' , ', presetEnv), /names no chain configuration/);
    });
  });
});
