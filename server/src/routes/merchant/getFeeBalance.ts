import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { feeBalancesOf } from '../../settlement/feeBalance.js';

type Ok = operations['getFeeBalance']['responses'][200]['content']['application/json'];

/** GET /v1/merchant/fees: the direct-mode fee balance of the key's mode */
export function getFeeBalanceHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const auth = merchantAuthOf(res);
    res.json(await feeBalancesOf(deps.db.knex, { merchantId: auth.merchant.id, live: auth.live }));
  };
}
