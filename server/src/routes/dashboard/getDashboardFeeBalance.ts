import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { feeBalancesOf } from '../../settlement/feeBalance.js';

type Ok = operations['getDashboardFeeBalance']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/fees: the direct-mode fee balance of the request's mode */
export function getDashboardFeeBalanceHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await feeBalancesOf(deps.db.knex, { merchantId, live: mode === 'live' }));
  };
}
