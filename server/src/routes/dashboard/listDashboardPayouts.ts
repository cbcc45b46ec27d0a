import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { listPayouts } from '../../settlement/merchantPayouts.js';

type Query = NonNullable<operations['listDashboardPayouts']['parameters']['query']>;
type Ok = operations['listDashboardPayouts']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/payouts: the merchant API's listPayouts for the request's mode */
export function listDashboardPayoutsHandler(
  deps: AccountsDeps,
): RequestHandler<Record<string, never>, Ok, unknown, Query> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await listPayouts(deps.db.knex, { merchantId, live: mode === 'live' }, req.query));
  };
}
