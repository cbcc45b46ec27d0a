import type { components } from '../../generated/dev.js';
import type { EvmChainConfig } from './config.js';

/** The local EVM chain as `GET /v1/dev/chains` describes it (routes/dev/listDevChains.ts). */
export function evmDevChain(config: EvmChainConfig): components['schemas']['DevChain'] {
  // The contract lists the native coin first.
  const assets = [...config.assets].sort((a, b) => Number(a.address !== null) - Number(b.address !== null));
  return {
    caip2: config.caip2,
    namespace: config.namespace,
    rpcUrl: config.rpcUrl,
    confirmations: config.confirmations,
    assets: assets.map(({ caip19, symbol, decimals, address, eip3009 }) => ({
      caip19,
      symbol,
      decimals,
      address,
      eip3009,
    })),
  };
}
