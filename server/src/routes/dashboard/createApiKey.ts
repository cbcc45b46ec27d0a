import type { RequestHandler } from 'express';
import { createMerchantKey } from '../../accounts/apiKeys.js';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Operation = operations['createApiKey'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/dashboard/api-keys: 201 with the secret, shown once (never logged, never audited) */
export function createApiKeyHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const created = await createMerchantKey(deps, merchantId, mode, req.body);
    res.locals.auditDetails = { keyId: created.apiKey.id, prefix: created.apiKey.prefix, mode };
    res.status(201).json(created);
  };
}
