/** viem clients for one configured EVM chain: a public client for reads and the relayer's wallet client. */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  createTransport,
  RpcRequestError,
  type Chain,
  type EIP1193RequestFn,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { observeRpc, silentObserver, type Observer } from '../../observability/observer.js';
import { nativeAsset, type EvmChainConfig } from '../chainsSetting.js';
import { endpointsOf } from '../rpcEndpoints.js';
import { RpcPool, type RpcPoolOptions } from '../rpcPool.js';

import { RelayTurns } from './relayTurns.js';

export interface EvmClients {
  chain: Chain;
  public: PublicClient<Transport, Chain>;
  relayer: WalletClient<Transport, Chain, PrivateKeyAccount>;
  /** The relayer's turns in this process (relayTurns.ts). */
  relayTurns: RelayTurns;
  /** Tokens' EIP-712 domains, read on chain once per token (actions.ts `tokenDomain`). */
  tokenDomains: Map<string, Promise<{ name: string; version: string }>>;
  /** The endpoints both clients share: their health is what metrics and /readyz report. */
  pool: RpcPool;
}

export function viemChain(config: EvmChainConfig): Chain {
  const native = nativeAsset(config);
  return defineChain({
    id: config.chainId,
    name: config.name,
    nativeCurrency: native
      ? { name: native.name, symbol: native.symbol, decimals: native.decimals }
      : { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: endpointsOf(config).map((e) => e.url) } },
    contracts: { multicall3: { address: config.multicall3 } },
    testnet: config.mode === 'test',
  });
}

/** Answers that mean "this node has no such transaction (or block)": confirmed with the other endpoints. */
const EVM_LOOKUPS = new Set(['eth_getTransactionReceipt', 'eth_getTransactionByHash', 'eth_getBlockByHash']);

/**
 * A block asked for by its number (not a tag) that one node answers null has not reached that node yet: the receipt
 * that named it may have come from another endpoint, so the others are asked before "no such block" is believed.
 */
function isNumberedBlock(method: string, params: unknown): boolean {
  const at = Array.isArray(params) ? (params[0] as unknown) : undefined;
  return method === 'eth_getBlockByNumber' && typeof at === 'string' && at.startsWith('0x');
}

export function evmRpcPool(config: EvmChainConfig, observer: Observer, tuning: Partial<RpcPoolOptions> = {}): RpcPool {
  return new RpcPool({
    chain: config.caip2,
    endpoints: endpointsOf(config),
    sendEndpoints: config.sendRpcEndpoints,
    headMethod: 'eth_blockNumber',
    sendMethods: ['eth_sendRawTransaction'],
    notFound: (method, result, params) =>
      result === null && (EVM_LOOKUPS.has(method) || isNumberedBlock(method, params)),
    maxHeadLag: BigInt(config.maxHeadLag ?? 2),
    onCall: (record) => observer.rpcEndpointCall?.(record),
    ...tuning,
  });
}

/**
 * The chain's endpoints (rpcPool.ts) as a viem transport, with every call timed per chain and method
 * (observability/observer.ts). Batching stays off so that each method gets its own latency; multicall already
 * batches the reads that matter.
 */
export function observedTransport(
  config: EvmChainConfig,
  observer: Observer,
  pool = evmRpcPool(config, observer),
): Transport {
  return (() =>
    createTransport({
      key: 'paygatePool',
      name: 'Paygate RPC pool',
      type: 'paygatePool',
      retryCount: 1,
      request: (async ({ method, params }: { method: string; params?: unknown }) =>
        observeRpc(observer, config.caip2, method, async () => {
          const response = await pool.request(method, params ?? []);
          if (response.error)
            throw new RpcRequestError({ body: { method, params }, error: response.error, url: 'pool' });
          return response.result;
        })) as EIP1193RequestFn,
    })) as Transport;
}

export interface ClientOptions {
  observer?: Observer;
  /** How often to poll for new blocks and receipts; viem's default (4 s) suits public chains, not anvil. */
  pollingIntervalMs?: number;
  /** The pool's tuning (a test shortens the breaker so a healed endpoint is probed again within its wait). */
  pool?: Partial<RpcPoolOptions>;
}

export function createEvmClients(config: EvmChainConfig, options: ClientOptions = {}): EvmClients {
  const chain = viemChain(config);
  const observer = options.observer ?? silentObserver;
  const pool = evmRpcPool(config, observer, options.pool);
  const transport = observedTransport(config, observer, pool);
  const pollingInterval = options.pollingIntervalMs;
  return {
    chain,
    pool,
    public: createPublicClient({ chain, transport, pollingInterval }),
    relayer: createWalletClient({ chain, transport, pollingInterval, account: privateKeyToAccount(config.relayerKey) }),
    relayTurns: new RelayTurns(),
    tokenDomains: new Map(),
  };
}
