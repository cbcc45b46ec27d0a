import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardUserOf } from '../../http/dashboardAuth.js';
import type { UsersDeps } from '../../users/usersDeps.js';
import { startEnrolment } from '../../users/twoFactor.js';

type Ok = operations['startTwoFactorEnrolment']['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/two-factor/enrol: a pending TOTP secret and its otpauth URI */
export function startTwoFactorEnrolmentHandler(deps: UsersDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    res.json(await startEnrolment(deps, dashboardUserOf(res).user));
  };
}
