import type { RequestHandler } from 'express';
import { evmDevChain } from '../../chains/eip155/devChain.js';
import { localSolanaConfig, type LocalChains } from '../../chains/index.js';
import { solanaDevChain } from '../../chains/solana/devChain.js';
import type { operations } from '../../generated/dev.js';

type Ok = operations['listDevChains']['responses'][200]['content']['application/json'];

/** GET /v1/dev/chains */
export function listDevChainsHandler(local: LocalChains): RequestHandler<Record<string, never>, Ok> {
  return (_req, res) => {
    res.json({ chains: [evmDevChain(local.evm.config), solanaDevChain(localSolanaConfig(local.solana))] });
  };
}
