import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { clientIp, dashboardUserOf } from '../../http/dashboardAuth.js';
import type { SecurityEventDeps } from './deps.js';
import { disable } from '../../users/twoFactor.js';

type Body = operations['disableTwoFactor']['requestBody']['content']['application/json'];

/** POST /v1/dashboard/two-factor/disable: 204; the secret and recovery codes are deleted */
export function disableTwoFactorHandler(deps: SecurityEventDeps): RequestHandler<Record<string, never>, unknown, Body> {
  return async (req, res) => {
    const { user } = dashboardUserOf(res);
    await disable(deps, user, req.body.password, req.body.code);
    await deps.securityEvents({
      userId: user.id,
      action: 'disableTwoFactor',
      target: null,
      details: null,
      ip: clientIp(req),
    });
    res.status(204).end();
  };
}
