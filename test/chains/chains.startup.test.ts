/**
 * Startup against real chains: the on-chain check of token metadata, connecting to chains a file configures (here
 * the run's anvil, reached over its RPC URL like any remote chain), and the readiness checks /readyz runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp, createRuntime, openDatabase, runReadiness, type Runtime } from '@paygate/server';
import type { EvmChainConfig } from '../../server/src/chains/chainsSetting.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { ChainMetadataError, checkChainMetadata } from '../../server/src/chains/eip155/metadata.js';
import { chainReadinessChecks, startChains } from '../../server/src/chains/index.js';
import { ANVIL_KEYS } from '@paygate/devchain';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import { deadRpcUrl, sharedLocalChain } from '../helpers/chain.js';
import { startFaultProxy } from '../helpers/faultProxy.js';
import { eventually } from '../helpers/wait.js';
import { testConfig } from '../helpers/config.js';
import { listen } from '../helpers/http.js';

const silent = pino({ level: 'silent' });

async function expectMetadataError(config: EvmChainConfig, ...patterns: RegExp[]): Promise<void> {
  await assert.rejects(checkChainMetadata(config, createEvmClients(config).public), (err: unknown) => {
    assert.ok(err instanceof ChainMetadataError, String(err));
    for (const p of patterns) assert.match(err.message, p);
    return true;
  });
}

describe('chains.startup', () => {
  let chain: LocalEvmChain;
  let tusd: EvmChainConfig['assets'][number];
  before(async () => {
    chain = await sharedLocalChain();
    tusd = chain.config.assets.find((a) => a.symbol === 'TUSD')!;
  });

  /** The local chain's configuration with TUSD changed. */
  function withTusd(change: Partial<EvmChainConfig['assets'][number]>): EvmChainConfig {
    return {
      ...chain.config,
      assets: chain.config.assets.map((a) => (a === tusd ? { ...a, ...change } : a)),
    };
  }

  describe('the metadata check', () => {
    it('passes when symbol and decimals match the chain', async () => {
      await checkChainMetadata(chain.config, chain.clients.public);
    });

    it('names the chain and the asset whose decimals disagree', async () => {
      await expectMetadataError(
        withTusd({ decimals: 18 }),
        /^Chain eip155:31337 \(Local\): the configuration disagrees with the chain:/,
        new RegExp(`asset ${tusd.caip19} \\(TUSD\\): the chain says decimals 6, the configuration 18`),
      );
    });

    it('reports every disagreement at once', async () => {
      await expectMetadataError(
        withTusd({ symbol: 'USDC', decimals: 8 }),
        /\(USDC\): the chain says symbol "TUSD", the configuration "USDC"/,
        /\(USDC\): the chain says decimals 6, the configuration 8/,
      );
    });

    it('names an asset whose address holds no token', async () => {
      const nowhere = '0x000000000000000000000000000000000000dEaD';
      await expectMetadataError(
        withTusd({ address: nowhere, caip19: `eip155:31337/erc20:${nowhere}` }),
        new RegExp(`asset eip155:31337/erc20:${nowhere} \\(TUSD\\): symbol\\(\\) or decimals\\(\\) failed`),
      );
    });

    it('refuses an RPC endpoint of another chain', async () => {
      await expectMetadataError(
        { ...chain.config, caip2: 'eip155:8453', chainId: 8453, name: 'Base' },
        /^Chain eip155:8453 \(Base\): the RPC endpoint serves chain id 31337, not 8453$/,
      );
    });

    it('refuses an RPC endpoint that does not answer, without showing its URL', async () => {
      const url = await deadRpcUrl();
      await assert.rejects(
        checkChainMetadata({ ...chain.config, rpcUrl: url }, createEvmClients({ ...chain.config, rpcUrl: url }).public),
        (err: unknown) => {
          assert.ok(err instanceof ChainMetadataError);
          assert.match(err.message, /^Chain eip155:31337 \(Local\): the RPC endpoint does not answer: /);
          assert.ok(!err.message.includes(url), err.message);
          return true;
        },
      );
    });
  });

  describe('a chain file', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'paygate-chainfile-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** The run's anvil described as a remote chain, its URL and key given as placeholders like an operator's. */
    function chainFile(decimals = 6): string {
      const path = join(dir, `local-${decimals}.json`);
      const { relayerKey: _key, rpcUrl: _url, caip2, name, confirmations, assets } = chain.config;
      const doc = {
        chains: [
          {
            caip2,
            name,
            mode: 'test',
            confirmations,
            rpcUrl: '${PAYGATE_RPC_LOCAL}',
            relayerKey: '${PAYGATE_RELAYER_KEY}',
            assets: assets.map((a) => (a === tusd ? { ...a, decimals } : a)),
          },
        ],
      };
      writeFileSync(path, JSON.stringify(doc));
      return path;
    }

    const env = () => ({ PAYGATE_RPC_LOCAL: chain.config.rpcUrl, PAYGATE_RELAYER_KEY: ANVIL_KEYS.relayer });

    it('connects and checks: no local chains, so no dev routes', async () => {
      const chains = await startChains({ chains: chainFile(), chainEnv: env() });
      try {
        assert.equal(chains.local, null);
        assert.deepEqual(
          chains.evm.map((c) => c.config.caip2),
          ['eip155:31337'],
        );
        assert.equal(chains.evm[0]!.clients.relayer.account.address, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC');
      } finally {
        await chains.close();
      }
    });

    it('stops the startup when the file disagrees with the chain', async () => {
      await assert.rejects(
        startChains({ chains: chainFile(18), chainEnv: env() }),
        /Chain eip155:31337 \(Local\): .*the chain says decimals 6, the configuration 18/s,
      );
    });

    describe('in a runtime', () => {
      let runtime: Runtime;
      before(async () => {
        const config = testConfig({ PAYGATE_CHAINS: chainFile(), ...env() });
        runtime = await createRuntime({ config, db: openDatabase('sqlite::memory:'), logger: silent, chains: 'start' });
      });
      after(async () => {
        await runtime?.close();
        await runtime?.db.close();
      });

      it('/readyz reports each configured chain, and the RPC calls are measured per chain', async () => {
        const server = await listen(createApp({ runtime, validateResponses: true }));
        try {
          const res = await fetch(`${server.url}/readyz`);
          const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
          assert.equal(res.status, 200);
          assert.equal(body.checks['chain:eip155:31337']?.status, 'ok');
          const metrics = await runtime.metrics.registry.metrics();
          assert.match(
            metrics,
            /paygate_chain_rpc_duration_seconds_count\{chain="eip155:31337",method="eth_chainId"\} \d+/,
          );
        } finally {
          await server.close();
        }
      });
    });
  });

  describe('readiness', () => {
    const checksOf = (config: EvmChainConfig, pool = {}) =>
      chainReadinessChecks({
        evm: [{ config, clients: createEvmClients(config, { pool }) }],
        solana: [],
        local: null,
        close: async () => {},
      });

    it('reports a chain with no endpoint answering as degraded and stays ready; it recovers without a restart', async () => {
      const proxy = await startFaultProxy(chain.config.rpcUrl);
      try {
        const config = { ...chain.config, rpcUrl: proxy.url };
        const checks = checksOf(config, { breakerOpenMs: 50, backoffMs: 10 });
        proxy.inject('*', { kind: 'serverError', status: 503 });
        const down = await runReadiness(checks, silent);
        assert.equal(down.ready, true, 'the other chains are still served');
        assert.equal(down.degraded, true);
        assert.equal(down.checks['chain:eip155:31337']?.status, 'degraded');
        proxy.heal();
        const back = await eventually('the chain check ok again', async () => {
          const r = await runReadiness(checks, silent);
          return r.checks['chain:eip155:31337']?.status === 'ok' ? r : undefined;
        });
        assert.equal(back.degraded, false);
      } finally {
        await proxy.close();
      }
    });

    it('fails readiness for a chain whose endpoint serves another chain id', async () => {
      const checks = checksOf({ ...chain.config, chainId: 1 });
      const readiness = await runReadiness(checks, silent);
      assert.equal(readiness.ready, false);
      assert.equal(readiness.checks['chain:eip155:31337']?.status, 'failing');
    });

    it('reports an unreachable chain as degraded, not failing', async () => {
      const readiness = await runReadiness(checksOf({ ...chain.config, rpcUrl: await deadRpcUrl() }), silent);
      assert.equal(readiness.ready, true);
      assert.equal(readiness.checks['chain:eip155:31337']?.status, 'degraded');
    });
  });
});
