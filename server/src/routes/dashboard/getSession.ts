import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardUserOf } from '../../http/dashboardAuth.js';
import type { UsersDeps } from '../../users/usersDeps.js';
import { sessionJson } from '../../users/sessions.js';

type Ok = operations['getSession']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/session: the user, their merchants, the CSRF token, the expiries */
export function getSessionHandler(deps: UsersDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    res.json(await sessionJson(deps, dashboardUserOf(res)));
  };
}
