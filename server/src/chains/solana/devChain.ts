import type { components } from '../../generated/dev.js';
import type { SolanaChainConfig } from './config.js';

/** The local Solana chain as `GET /v1/dev/chains` describes it: final at its commitment, so one confirmation. */
export function solanaDevChain(config: SolanaChainConfig): components['schemas']['DevChain'] {
  const assets = [...config.assets].sort((a, b) => Number(a.mint !== null) - Number(b.mint !== null));
  return {
    caip2: config.caip2,
    namespace: 'solana',
    rpcUrl: config.rpcUrl,
    confirmations: 1,
    assets: assets.map(({ caip19, symbol, decimals, mint }) => ({
      caip19,
      symbol,
      decimals,
      address: mint,
      eip3009: false,
    })),
  };
}
