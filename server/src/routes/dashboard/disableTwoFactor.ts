import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardUserOf } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';
import { disable } from '../../users/twoFactor.js';

type Body = operations['disableTwoFactor']['requestBody']['content']['application/json'];

/** POST /v1/dashboard/two-factor/disable: 204; the secret and recovery codes are deleted */
export function disableTwoFactorHandler(runtime: Runtime): RequestHandler<Record<string, never>, unknown, Body> {
  return async (req, res) => {
    await disable(runtime, dashboardUserOf(res).user, req.body.password, req.body.code);
    res.status(204).end();
  };
}
