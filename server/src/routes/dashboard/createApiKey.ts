import type { RequestHandler } from 'express';
import { createMerchantKey } from '../../accounts/apiKeys.js';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { operations } from '../../generated/dashboard.js';
import { ApiError } from '../../errors.js';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';

type Operation = operations['createApiKey'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/dashboard/api-keys: 201 with the secret, shown once (never logged, never audited) */
export function createApiKeyHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const { merchantId, mode, role, actor } = dashboardPrincipalOf(res);
    // A refund key can send the merchant's money to an address its holder picks: an owner's decision, made in person
    // (a session), never by a developer or by an API key (which acts as developer).
    if (req.body.canRefund === true && !(role === 'owner' && actor.kind === 'user'))
      throw new ApiError(
        'forbidden',
        'Only an owner signed in to the dashboard can create a key allowed to send refunds (canRefund).',
      );
    const created = await createMerchantKey(deps, merchantId, mode, req.body);
    res.locals.auditDetails = {
      keyId: created.apiKey.id,
      prefix: created.apiKey.prefix,
      mode,
      canRefund: created.apiKey.canRefund,
    };
    res.status(201).json(created);
  };
}
