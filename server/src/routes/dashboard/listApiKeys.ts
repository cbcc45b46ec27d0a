import type { RequestHandler } from 'express';
import { listMerchantKeys } from '../../accounts/apiKeys.js';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Ok = operations['listApiKeys']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/api-keys: the keys of this merchant and mode, and its partner's partner-wide ones */
export function listApiKeysHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json({ data: await listMerchantKeys(deps, merchantId, mode) });
  };
}
