import type { RequestHandler } from 'express';
import { revokeMerchantKey } from '../../accounts/apiKeys.js';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Operation = operations['revokeApiKey'];

/** DELETE /v1/dashboard/api-keys/{keyId}: 204, no body */
export function revokeApiKeyHandler(deps: AccountsDeps): RequestHandler<Operation['parameters']['path']> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const revoked = await revokeMerchantKey(deps, merchantId, mode, req.params.keyId);
    res.locals.auditDetails = { prefix: revoked.prefix };
    res.status(204).end();
  };
}
