import type { RequestHandler } from 'express';
import type { Database } from '../../db/connect.js';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { settlementBalances } from '../../settlement/merchantPayouts.js';

type Operation = operations['getSettlementBalances'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/merchant/settlements */
export function getSettlementBalancesHandler(deps: { db: Database }): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const auth = merchantAuthOf(res);
    res.json(await settlementBalances(deps.db.knex, { merchantId: auth.merchant.id, live: auth.live }));
  };
}
