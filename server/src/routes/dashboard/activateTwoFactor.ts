import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { clientIp, dashboardUserOf } from '../../http/dashboardAuth.js';
import type { SecurityEventDeps } from './deps.js';
import { activate } from '../../users/twoFactor.js';

type Body = operations['activateTwoFactor']['requestBody']['content']['application/json'];
type Ok = operations['activateTwoFactor']['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/two-factor/activate: two-factor authentication on; the recovery codes, shown once */
export function activateTwoFactorHandler(deps: SecurityEventDeps): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const { user } = dashboardUserOf(res);
    const recoveryCodes = await activate(deps, user, req.body.code);
    await deps.securityEvents({
      userId: user.id,
      action: 'activateTwoFactor',
      target: null,
      details: null,
      ip: clientIp(req),
    });
    res.json({ recoveryCodes });
  };
}
