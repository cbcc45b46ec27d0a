import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { getOverview } from '../../payments/overview.js';

type Ok = operations['getOverview']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/overview */
export function getOverviewHandler(deps: LifecycleDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json(await getOverview(deps, { merchantId, live: mode === 'live' }));
  };
}
