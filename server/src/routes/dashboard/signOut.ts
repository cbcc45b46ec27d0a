import type { RequestHandler } from 'express';
import { revokeSessionOfUser } from '../../db/queries/dashboardSessions.js';
import { clearSessionCookie, dashboardUserOf, type DashboardAuthDeps } from '../../http/dashboardAuth.js';

/** POST /v1/dashboard/auth/logout: 204; the session is revoked and the cookie cleared */
export function signOutHandler(deps: DashboardAuthDeps): RequestHandler {
  return async (req, res) => {
    const { user, session } = dashboardUserOf(res);
    await revokeSessionOfUser(deps.db.knex, user.id, session.id, deps.now());
    clearSessionCookie(deps, req, res);
    res.status(204).end();
  };
}
