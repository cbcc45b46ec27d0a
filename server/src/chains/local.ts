/**
 * The chains of `PAYGATE_CHAINS=local`, started by the dev package @paygate/devchain and turned here into the
 * server's chain configuration and clients. The package is a dev dependency, loaded on demand, so a production
 * install never carries anvil, LiteSVM or their faucets.
 */
import type { Logger } from 'pino';
import {
  createTestClient,
  createWalletClient,
  http,
  type Address,
  type Chain,
  type PrivateKeyAccount,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type * as DevchainModule from '@paygate/devchain';
import type { AnvilChain, EvmFaucet, LocalSolanaChain } from '@paygate/devchain';
import type { components } from '../generated/dev.js';
import type { Observer } from '../observability/observer.js';
import { evmDevChain } from './eip155/devChain.js';
import { createEvmClients, type EvmClients } from './eip155/client.js';
import { localChainConfig } from './eip155/localConfig.js';
import type { EvmChainConfig } from './eip155/config.js';
import { solanaDevChain } from './solana/devChain.js';
import { localSolanaConfig } from './solana/localConfig.js';

type Devchain = typeof DevchainModule;

export interface LocalEvmChain {
  config: EvmChainConfig;
  clients: EvmClients;
  /** Signs as anvil account #0, TUSD's minter. */
  faucet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  /** anvil's own methods (snapshots, mining, balances), for tests and tools. */
  test: TestClient<'anvil', Transport, Chain>;
  testUsd: Address;
  /** The dev package's faucet (one transaction at a time), behind `POST /v1/dev/faucet`. */
  fund: EvmFaucet;
  /** Stops anvil; the chain's state is gone (it lives in anvil's memory only). */
  stop(): Promise<void>;
}

export interface LocalChains {
  evm: LocalEvmChain;
  solana: LocalSolanaChain;
}

export const DEVCHAIN_MISSING =
  'PAYGATE_CHAINS=local needs the dev package @paygate/devchain; install dev dependencies or choose a chain preset';

/** The one place the server loads the dev package. */
async function loadDevchain(): Promise<Devchain> {
  try {
    return await import('@paygate/devchain');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    if (missing && String((err as Error).message).includes('@paygate/devchain')) throw new Error(DEVCHAIN_MISSING);
    throw err;
  }
}

/**
 * The server's view of the anvil chain. Its clients are built here from plain data, with the server's own viem, so
 * that no viem object of the dynamically imported package (a second copy under mocha) reaches the server or a test.
 */
function localEvmChain(anvil: AnvilChain, devchain: Devchain, observer: Observer): LocalEvmChain {
  const config = localChainConfig(anvil, anvil.testUsd);
  const pollingInterval = devchain.LOCAL_POLLING_MS;
  const clients = createEvmClients(config, { observer, pollingIntervalMs: pollingInterval });
  const { chain } = clients;
  const transport = http(anvil.rpcUrl);
  return {
    config,
    clients,
    faucet: createWalletClient({ chain, transport, account: privateKeyToAccount(anvil.keys.faucet), pollingInterval }),
    test: createTestClient({ chain, transport, mode: 'anvil', pollingInterval }),
    testUsd: anvil.testUsd,
    fund: anvil.faucet,
    stop: anvil.stop,
  };
}

/**
 * The local EVM chain's block time when the server starts it itself (`paygate start`): anvil mines only on a
 * transaction, and its `finalized` block is 64 behind the head, so without blocks of its own a quiet chain never
 * finalizes a deposit, a sweep or a payout. One empty block a second finalizes in about a minute. The Solana local
 * chain needs nothing: its slots follow wall time.
 */
export const LOCAL_BLOCK_TIME_MS = 1_000;

export interface StartLocalChainsOptions {
  observer: Observer;
  logger?: Logger;
  /** An empty EVM block this often (ms), transactions still mined at once; none when absent (tests). */
  blockTimeMs?: number;
}

/** Starts both local chains (stopping the first if the second fails) and logs where they listen. */
export async function startLocalChains(options: StartLocalChainsOptions): Promise<LocalChains> {
  const started = performance.now();
  const devchain = await loadDevchain();
  const anvil = await devchain.startAnvilChain({ blockTimeMs: options.blockTimeMs });
  let solana: LocalSolanaChain;
  try {
    solana = await devchain.startLocalSolanaChain();
  } catch (err) {
    await anvil.stop();
    throw err;
  }
  const evm = localEvmChain(anvil, devchain, options.observer);
  options.logger?.info(
    {
      chain: evm.config.caip2,
      rpcUrl: evm.config.rpcUrl,
      tusd: evm.testUsd,
      blockTimeMs: options.blockTimeMs ?? null,
      ms: Math.round(performance.now() - started),
    },
    'local chain running (anvil); fund test accounts with POST /v1/dev/faucet',
  );
  options.logger?.info(
    { chain: solana.caip2, rpcUrl: solana.rpcUrl, tusd: solana.mints.tusd.address },
    'local Solana chain running (LiteSVM)',
  );
  return { evm, solana };
}

/** The local chains as `GET /v1/dev/chains` lists them (routes/dev/listDevChains.ts). */
export function localDevChains(local: LocalChains): components['schemas']['DevChain'][] {
  return [evmDevChain(local.evm.config), solanaDevChain(localSolanaConfig(local.solana))];
}
