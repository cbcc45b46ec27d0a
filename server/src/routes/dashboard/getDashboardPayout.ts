import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { readPayout } from '../../settlement/merchantPayouts.js';

type Ok = operations['getDashboardPayout']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/payouts/{payoutId}: one payout of the request's mode with the payments it covered */
export function getDashboardPayoutHandler(deps: AccountsDeps): RequestHandler<{ payoutId: string }, Ok> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await readPayout(deps.db.knex, { merchantId, live: mode === 'live' }, req.params.payoutId));
  };
}
