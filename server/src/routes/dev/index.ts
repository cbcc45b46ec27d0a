import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dev.js';
import { contractRouter } from '../../http/operations.js';
import type { LocalChains } from '../../chains/index.js';
import { devFaucetHandler } from './devFaucet.js';
import { listDevChainsHandler } from './listDevChains.js';

/**
 * The dev API (openapi/dev/): mounted by app.ts only while this process runs local chains, after the contract
 * validator. No authentication and no rate limit: it moves only worthless local-chain funds (docs/decisions.md §12).
 */
export function devRouter(local: LocalChains): RequestHandler {
  return contractRouter<operations>('dev', [], {
    listDevChains: listDevChainsHandler(local),
    devFaucet: devFaucetHandler(local),
  });
}
