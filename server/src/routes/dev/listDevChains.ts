import type { RequestHandler } from 'express';
import { localDevChains, type LocalChains } from '../../chains/index.js';
import type { operations } from '../../generated/dev.js';

type Ok = operations['listDevChains']['responses'][200]['content']['application/json'];

/** GET /v1/dev/chains */
export function listDevChainsHandler(local: LocalChains): RequestHandler<Record<string, never>, Ok> {
  return (_req, res) => {
    res.json({ chains: localDevChains(local) });
  };
}
