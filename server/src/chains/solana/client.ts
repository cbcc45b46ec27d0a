/** The RPC client of one Solana chain, every call timed per chain and method like the EVM clients. */
import {
  createKeyPairSignerFromBytes,
  createSolanaRpcFromTransport,
  getBase58Encoder,
  type KeyPairSigner,
  type RpcTransport,
  type SolanaRpcApi,
  type Rpc,
} from '@solana/kit';
import { observeRpc, silentObserver, type Observer } from '../../observability/observer.js';
import { endpointsOf } from '../rpcEndpoints.js';
import { RpcPool, type RpcPoolOptions } from '../rpcPool.js';
import type { SolanaChainConfig } from './config.js';

export type SolanaRpc = Rpc<SolanaRpcApi>;

export interface SolanaChain {
  config: SolanaChainConfig;
  rpc: SolanaRpc;
  /** The endpoints `rpc` goes through: their health is what metrics report. Absent on a hand-built chain. */
  pool?: RpcPool;
  /** Signs every payment transaction as its fee payer. */
  feePayer: KeyPairSigner;
}

/** Answers that mean "this node has not seen it": confirmed with the other endpoints before anyone believes them. */
function solanaNotFound(method: string, result: unknown): boolean {
  if (method === 'getTransaction') return result === null;
  if (method === 'getSignatureStatuses') {
    const value = (result as { value?: unknown[] } | null)?.value;
    return Array.isArray(value) && value.some((s) => s === null);
  }
  return false;
}

export function solanaRpcPool(
  config: SolanaChainConfig,
  observer: Observer,
  tuning: Partial<RpcPoolOptions> = {},
): RpcPool {
  return new RpcPool({
    chain: config.caip2,
    endpoints: endpointsOf(config),
    sendEndpoints: config.sendRpcEndpoints,
    headMethod: 'getSlot',
    sendMethods: ['sendTransaction'],
    notFound: solanaNotFound,
    maxHeadLag: BigInt(config.maxHeadLag ?? 150),
    onCall: (record) => observer.rpcEndpointCall?.(record),
    ...tuning,
  });
}

/**
 * kit's RPC over the chain's endpoints: a custom RpcTransport that hands each payload to the pool (rpcPool.ts),
 * which picks the endpoint, fails over and broadcasts sends; kit still parses and raises JSON-RPC errors itself.
 */
export function createSolanaClient(
  config: SolanaChainConfig,
  observer: Observer = silentObserver,
  pool = solanaRpcPool(config, observer),
): SolanaRpc {
  const transport: RpcTransport = (async (request: Parameters<RpcTransport>[0]) => {
    const payload = request.payload as { method?: string; params?: unknown };
    const method = payload.method ?? 'unknown';
    return observeRpc(observer, config.caip2, method, () => pool.request(method, payload.params ?? []));
  }) as RpcTransport;
  return createSolanaRpcFromTransport(transport);
}

export async function connectSolanaChain(
  config: SolanaChainConfig,
  observer?: Observer,
  feePayer?: KeyPairSigner,
): Promise<SolanaChain> {
  const pool = solanaRpcPool(config, observer ?? silentObserver);
  return {
    config,
    pool,
    rpc: createSolanaClient(config, observer, pool),
    feePayer:
      feePayer ?? (await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(config.feePayerKey)))),
  };
}
