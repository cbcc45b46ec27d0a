import type { RequestHandler } from 'express';
import { rotateMerchantKey } from '../../accounts/apiKeys.js';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Operation = operations['rotateApiKey'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/api-keys/{keyId}/rotate: the new key with its secret (shown once) and the revoked one */
export function rotateApiKeyHandler(deps: AccountsDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const rotated = await rotateMerchantKey(deps, merchantId, mode, req.params.keyId);
    res.locals.auditDetails = {
      revokedPrefix: rotated.revoked.prefix,
      newKeyId: rotated.apiKey.id,
      prefix: rotated.apiKey.prefix,
    };
    res.json(rotated);
  };
}
