/** viem clients for one configured EVM chain: a public client for reads and the relayer's wallet client. */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Chain,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { observeRpc, silentObserver, type Observer } from '../../observability/observer.js';
import { nativeAsset, type EvmChainConfig } from '../chainsSetting.js';

import { RelayTurns } from './relayTurns.js';

export interface EvmClients {
  chain: Chain;
  public: PublicClient<Transport, Chain>;
  relayer: WalletClient<Transport, Chain, PrivateKeyAccount>;
  /** The relayer's turns in this process (relayTurns.ts). */
  relayTurns: RelayTurns;
  /** Tokens' EIP-712 domains, read on chain once per token (actions.ts `tokenDomain`). */
  tokenDomains: Map<string, Promise<{ name: string; version: string }>>;
}

export function viemChain(config: EvmChainConfig): Chain {
  const native = nativeAsset(config);
  return defineChain({
    id: config.chainId,
    name: config.name,
    nativeCurrency: native
      ? { name: native.name, symbol: native.symbol, decimals: native.decimals }
      : { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
    contracts: { multicall3: { address: config.multicall3 } },
    testnet: config.mode === 'test',
  });
}

/**
 * HTTP to the chain's RPC URL, with every call timed per chain and method (observability/observer.ts). Batching
 * stays off so that each method gets its own latency; multicall already batches the reads that matter.
 */
export function observedTransport(config: EvmChainConfig, observer: Observer): Transport {
  const base = http(config.rpcUrl, { retryCount: 2, timeout: 10_000 });
  return ((params) => {
    const transport = base(params);
    return {
      ...transport,
      request: ((args, options) =>
        observeRpc(observer, config.caip2, args.method, () =>
          transport.request(args, options),
        )) as typeof transport.request,
    };
  }) as Transport;
}

export interface ClientOptions {
  observer?: Observer;
  /** How often to poll for new blocks and receipts; viem's default (4 s) suits public chains, not anvil. */
  pollingIntervalMs?: number;
}

export function createEvmClients(config: EvmChainConfig, options: ClientOptions = {}): EvmClients {
  const chain = viemChain(config);
  const transport = observedTransport(config, options.observer ?? silentObserver);
  const pollingInterval = options.pollingIntervalMs;
  return {
    chain,
    public: createPublicClient({ chain, transport, pollingInterval }),
    relayer: createWalletClient({ chain, transport, pollingInterval, account: privateKeyToAccount(config.relayerKey) }),
    relayTurns: new RelayTurns(),
    tokenDomains: new Map(),
  };
}
