import { Router } from 'express';
import type { LocalChains } from '../../chains/index.js';
import { devFaucetHandler } from './devFaucet.js';
import { listDevChainsHandler } from './listDevChains.js';

/**
 * The dev API (openapi/dev/): mounted by app.ts only while this process runs local chains, after the contract
 * validator. No authentication and no rate limit: it moves only worthless local-chain funds (docs/decisions.md §12).
 */
export function devRouter(local: LocalChains): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/v1/dev/chains', listDevChainsHandler(local));
  router.post('/v1/dev/faucet', devFaucetHandler(local));
  return router;
}
