import type { RequestHandler } from 'express';
import type { Database } from '../../db/connect.js';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { listPayouts } from '../../settlement/merchantPayouts.js';

type Operation = operations['listPayouts'];
type Ok = Operation['responses'][200]['content']['application/json'];
type Query = NonNullable<Operation['parameters']['query']>;

/** GET /v1/merchant/payouts */
export function listPayoutsHandler(deps: { db: Database }): RequestHandler<Record<string, never>, Ok, unknown, Query> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    res.json(await listPayouts(deps.db.knex, { merchantId: auth.merchant.id, live: auth.live }, req.query));
  };
}
