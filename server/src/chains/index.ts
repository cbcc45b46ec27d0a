/**
 * The chains the gateway serves, built once at startup from PAYGATE_CHAINS: started (`local`) or connected to
 * (presets and files), each checked against the chain before the server takes traffic.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { silentObserver, type Observer } from '../observability/observer.js';
import { ReadinessFailure, type ReadinessCheck } from '../observability/readiness.js';
import type { EndpointHealth, RpcPool } from './rpcPool.js';
import { loadChainsSetting, loadSolanaChainsSetting, type EvmChainConfig } from './chainsSetting.js';
import { createEvmClients, type EvmClients } from './eip155/client.js';
import { ChainMetadataError, checkChainMetadata } from './eip155/metadata.js';
import { shortError } from './rpcErrors.js';
import { startLocalChains, type LocalChains } from './local.js';
import type { ConfiguredChain } from './configuredChain.js';
import { evmConfiguredChain } from './eip155/configuredChain.js';
import { solanaConfiguredChain } from './solana/configuredChain.js';
import { connectSolanaChain, type SolanaChain } from './solana/client.js';
import { localSolanaConfig } from './solana/localConfig.js';
import { solanaReadinessCheck } from './solana/readiness.js';

export { localSolanaConfig } from './solana/localConfig.js';
export { FEE_PAYER_MIN_LAMPORTS, feePayerBalances } from './solana/readiness.js';
export { solanaPayUri } from './solana/payUri.js';
export { PRICE_PAIR, type ChainMode, type PriceFeedConfig } from './chainsSetting.js';
export { shortError } from './rpcErrors.js';
export { isEndpointFailure } from './rpcPost.js';
export { fundAccount, type FaucetRequest } from './faucet.js';
export { LOCAL_BLOCK_TIME_MS, localDevChains } from './local.js';
export type { AddChainParameters, ConfiguredAsset, ConfiguredChain } from './configuredChain.js';

export interface EvmChain {
  config: EvmChainConfig;
  clients: EvmClients;
}

export type { LocalChains } from './local.js';

export interface Chains {
  evm: EvmChain[];
  solana: SolanaChain[];
  /** The chains this process runs itself (PAYGATE_CHAINS=local); null otherwise. The dev routes exist only then. */
  local: LocalChains | null;
  /** Stops what was started (anvil); a no-op for remote chains. */
  close(): Promise<void>;
}

export interface StartChainsOptions {
  logger?: Logger;
  observer?: Observer;
  /** PAYGATE_CHAINS=local: the EVM chain's empty-block interval (LOCAL_BLOCK_TIME_MS for `paygate start`). */
  localBlockTimeMs?: number;
}

/**
 * Starts the local chains or connects to the configured ones, then checks every chain's id and token metadata.
 * Throws, having stopped anything it started, when a chain cannot be used.
 */
export async function startChains(
  config: Pick<Config, 'chains' | 'chainEnv'>,
  options: StartChainsOptions = {},
): Promise<Chains> {
  const observer = options.observer ?? silentObserver;
  let chains: Chains;
  if (config.chains === 'local') {
    const local = await startLocalChains({ observer, logger: options.logger, blockTimeMs: options.localBlockTimeMs });
    const { evm, solana } = local;
    const solanaChain = await connectSolanaChain(localSolanaConfig(solana), observer, solana.feePayer);
    chains = {
      evm: [{ config: evm.config, clients: evm.clients }],
      solana: [solanaChain],
      local,
      close: async () => {
        await Promise.all([evm.stop(), solana.stop()]);
      },
    };
  } else {
    const evm = loadChainsSetting(config.chains, config.chainEnv).map((c) => ({
      config: c,
      clients: createEvmClients(c, { observer }),
    }));
    const solana = await Promise.all(
      loadSolanaChainsSetting(config.chains, config.chainEnv).map((c) => connectSolanaChain(c, observer)),
    );
    chains = { evm, solana, local: null, close: async () => {} };
  }
  // Every chain is checked, so one start reports every misconfigured chain rather than the first one.
  const checks = await Promise.allSettled(chains.evm.map((c) => checkChainMetadata(c.config, c.clients.public)));
  const failures = checks.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failures.length > 0) {
    await chains.close();
    throw failures.length === 1 ? failures[0] : new ChainMetadataError(failures.map((e) => e.message).join('\n'));
  }
  for (const { config: c } of chains.evm) {
    options.logger?.info({ chain: c.caip2, chainName: c.name, mode: c.mode, assets: c.assets.length }, 'chain checked');
  }
  return chains;
}

/** One /readyz check per chain: its RPC endpoint answers and still serves the configured chain. */
export function chainReadinessChecks(chains: Chains): ReadinessCheck[] {
  return [...evmReadinessChecks(chains), ...chains.solana.map(solanaReadinessCheck)];
}

function evmReadinessChecks(chains: Chains): ReadinessCheck[] {
  return chains.evm.map(({ config, clients }) => ({
    name: `chain:${config.caip2}`,
    degradable: true,
    check: async () => {
      let id: number;
      try {
        id = await clients.public.getChainId();
      } catch (err) {
        throw new Error(`${config.caip2}: ${shortError(err)}`);
      }
      if (id !== config.chainId)
        throw new ReadinessFailure(`${config.caip2}: the RPC endpoint now serves chain id ${id}`);
    },
  }));
}

/** Every configured chain, whatever its namespace, in the order of the configuration (EVM chains first). */
export function allChains(chains: Chains): ConfiguredChain[] {
  return [
    ...chains.evm.map((c) => evmConfiguredChain(c.config, c.clients)),
    ...chains.solana.map((c) => solanaConfiguredChain(c.config)),
  ];
}

/** Every chain's endpoints and their health, for the per-endpoint gauges (observability/metrics.ts). */
export function rpcEndpointHealth(chains: Chains): { chain: string; endpoints: EndpointHealth[] }[] {
  return [
    ...chains.evm.map((c) => ({ chain: c.config.caip2, pool: c.clients.pool as RpcPool | undefined })),
    ...chains.solana.map((c) => ({ chain: c.config.caip2, pool: c.pool })),
  ].flatMap(({ chain, pool }) => (pool ? [{ chain, endpoints: pool.health() }] : []));
}

export function findEvmChain(chains: Chains, caip2: string): EvmChain | undefined {
  return chains.evm.find((c) => c.config.caip2 === caip2);
}
