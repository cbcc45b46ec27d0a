import type { RequestHandler } from 'express';
import type { EvmChainConfig } from '../../chains/config.js';
import { localSolanaConfig, type LocalChains } from '../../chains/index.js';
import type { SolanaChainConfig } from '../../chains/solana/config.js';
import type { components, operations } from '../../generated/dev.js';

type Ok = operations['listDevChains']['responses'][200]['content']['application/json'];

function devChain(config: EvmChainConfig): components['schemas']['DevChain'] {
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

/** The local Solana chain: final at its commitment, so one confirmation. */
function devSolanaChain(config: SolanaChainConfig): components['schemas']['DevChain'] {
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

/** GET /v1/dev/chains */
export function listDevChainsHandler(local: LocalChains): RequestHandler<Record<string, never>, Ok> {
  return (_req, res) => {
    res.json({ chains: [devChain(local.evm.config), devSolanaChain(localSolanaConfig(local.solana))] });
  };
}
