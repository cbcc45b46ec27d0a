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
  type Hex,
  type PrivateKeyAccount,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type * as DevchainModule from '@paygate/devchain';
import type { AnvilChain, EvmFaucet, LocalSolanaChain } from '@paygate/devchain';
import type { Observer } from '../observability/observer.js';
import type { EvmChainConfig } from './config.js';
import { createEvmClients, type EvmClients } from './eip155/client.js';
import type { SolanaChainConfig } from './solana/config.js';

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

/** The local EVM chain as the anvil of the dev package describes it. */
export interface AnvilChainInfo {
  rpcUrl: string;
  chainId: number;
  multicall3: Address;
  keys: { relayer: Hex };
}

/** The local chain's entry in the chain configuration, as the gateway and the dev routes see it. */
export function localChainConfig(anvil: AnvilChainInfo, testUsd: Address | null): EvmChainConfig {
  const caip2 = `eip155:${anvil.chainId}` as const;
  const networkName = 'Local chain (anvil)';
  const native = {
    caip19: `${caip2}/slip44:60`,
    address: null,
    decimals: 18,
    symbol: 'ETH',
    name: 'Ether',
    iconUrl: null,
    networkIconUrl: null,
    networkName,
    eip3009: false,
    peg: null,
  };
  const tusd = testUsd && {
    caip19: `${caip2}/erc20:${testUsd}`,
    address: testUsd,
    decimals: 6,
    symbol: 'TUSD',
    name: 'Paygate Test USD',
    iconUrl: null,
    networkIconUrl: null,
    networkName,
    eip3009: true,
    peg: 'USD',
  };
  return {
    caip2,
    namespace: 'eip155',
    chainId: anvil.chainId,
    name: 'Local',
    mode: 'test',
    rpcUrl: anvil.rpcUrl,
    explorerTxUrl: null,
    // Wallets in the browser tests (and a developer's own) can add the local chain from the checkout.
    publicRpcUrl: anvil.rpcUrl,
    // anvil mines one block per transaction and never reorganises.
    confirmations: 1,
    relayerKey: anvil.keys.relayer,
    multicall3: anvil.multicall3,
    assets: tusd ? [native, tusd] : [native],
    // Test mode without feeds: priced from the static table (server/src/quotes/staticRates.ts).
    priceFeeds: {},
    sequencerUptimeFeed: null,
  };
}

/** The local Solana chain's entry in the chain configuration. */
export function localSolanaConfig(local: LocalSolanaChain): SolanaChainConfig {
  const networkName = 'Local Solana (LiteSVM)';
  const { tusd } = local.mints;
  return {
    caip2: local.caip2,
    namespace: 'solana',
    name: 'Local Solana',
    mode: 'test',
    rpcUrl: local.rpcUrl,
    commitment: local.commitment,
    explorerTxUrl: null,
    // The local chain hands its fee payer over as a signer (connectSolanaChain's third argument).
    feePayerKey: '',
    assets: [
      {
        caip19: `${local.caip2}/slip44:501`,
        mint: null,
        decimals: 9,
        symbol: 'SOL',
        name: 'Solana',
        iconUrl: null,
        networkIconUrl: null,
        networkName,
        peg: null,
      },
      {
        caip19: `${local.caip2}/token:${tusd.address}`,
        mint: tusd.address,
        decimals: tusd.decimals,
        symbol: tusd.symbol,
        name: tusd.name,
        iconUrl: null,
        networkIconUrl: null,
        networkName,
        peg: 'USD',
      },
    ],
  };
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

/** Starts both local chains (stopping the first if the second fails) and logs where they listen. */
export async function startLocalChains(options: { observer: Observer; logger?: Logger }): Promise<LocalChains> {
  const started = performance.now();
  const devchain = await loadDevchain();
  const anvil = await devchain.startAnvilChain();
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
