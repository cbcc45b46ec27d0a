import type { RequestHandler } from 'express';
import { fundAccount, type LocalChains } from '../../chains/index.js';
import type { operations } from '../../generated/dev.js';

type Operation = operations['devFaucet'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/dev/faucet */
export function devFaucetHandler(local: LocalChains): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    res.json(await fundAccount(local, req.body));
  };
}
