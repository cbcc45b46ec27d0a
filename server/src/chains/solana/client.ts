/** The RPC client of one Solana chain, every call timed per chain and method like the EVM clients. */
import {
  createDefaultRpcTransport,
  createKeyPairSignerFromBytes,
  createSolanaRpcFromTransport,
  getBase58Encoder,
  type KeyPairSigner,
  type RpcTransport,
  type SolanaRpcApi,
  type Rpc,
} from '@solana/kit';
import { observeRpc, silentObserver, type Observer } from '../../observability/observer.js';
import type { SolanaChainConfig } from './config.js';

export type SolanaRpc = Rpc<SolanaRpcApi>;

export interface SolanaChain {
  config: SolanaChainConfig;
  rpc: SolanaRpc;
  /** Signs every payment transaction as its fee payer. */
  feePayer: KeyPairSigner;
}

export function createSolanaClient(config: SolanaChainConfig, observer: Observer = silentObserver): SolanaRpc {
  const base = createDefaultRpcTransport({ url: config.rpcUrl });
  const transport: RpcTransport = (request) => {
    const method = (request.payload as { method?: string }).method ?? 'unknown';
    return observeRpc(observer, config.caip2, method, () => base(request));
  };
  return createSolanaRpcFromTransport(transport);
}

export async function connectSolanaChain(
  config: SolanaChainConfig,
  observer?: Observer,
  feePayer?: KeyPairSigner,
): Promise<SolanaChain> {
  return {
    config,
    rpc: createSolanaClient(config, observer),
    feePayer:
      feePayer ?? (await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(config.feePayerKey)))),
  };
}
