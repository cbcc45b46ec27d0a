import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardUserOf } from '../../http/dashboardAuth.js';
import type { UsersDeps } from '../../users/usersDeps.js';
import { listSessionsOfUser } from '../../users/sessions.js';

type Ok = operations['listSessions']['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/sessions: the user's active sessions, newest first */
export function listSessionsHandler(deps: UsersDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    res.json({ sessions: await listSessionsOfUser(deps, dashboardUserOf(res)) });
  };
}
