import type { RequestHandler } from 'express';
import type { Database } from '../../db/connect.js';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { readPayout } from '../../settlement/merchantPayouts.js';

type Operation = operations['getPayout'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/merchant/payouts/{id} */
export function getPayoutHandler(deps: { db: Database }): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    res.json(await readPayout(deps.db.knex, { merchantId: auth.merchant.id, live: auth.live }, req.params.id));
  };
}
