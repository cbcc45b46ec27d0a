import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { settlementBalances } from '../../settlement/merchantPayouts.js';

type Ok = operations['getDashboardSettlementBalances']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/balances: collected mode's unpaid balances of the request's mode */
export function getDashboardSettlementBalancesHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await settlementBalances(deps.db.knex, { merchantId, live: mode === 'live' }));
  };
}
