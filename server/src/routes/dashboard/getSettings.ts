import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import { getMerchantSettings } from '../../accounts/merchants.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Ok = operations['getSettings']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/settings */
export function getSettingsHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    res.json(await getMerchantSettings(deps, dashboardScopeOf(res).merchantId));
  };
}
