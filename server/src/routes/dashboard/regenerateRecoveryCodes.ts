import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { clientIp, dashboardUserOf } from '../../http/dashboardAuth.js';
import type { SecurityEventDeps } from './deps.js';
import { regenerateRecoveryCodes } from '../../users/twoFactor.js';

type Body = operations['regenerateRecoveryCodes']['requestBody']['content']['application/json'];
type Ok = operations['regenerateRecoveryCodes']['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/two-factor/recovery-codes: ten new recovery codes, shown once */
export function regenerateRecoveryCodesHandler(
  deps: SecurityEventDeps,
): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const { user } = dashboardUserOf(res);
    const recoveryCodes = await regenerateRecoveryCodes(deps, user, req.body.code);
    await deps.securityEvents({
      userId: user.id,
      action: 'regenerateRecoveryCodes',
      target: null,
      details: null,
      ip: clientIp(req),
    });
    res.json({ recoveryCodes });
  };
}
