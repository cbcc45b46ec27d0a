import type { RequestHandler } from 'express';
import { revokeSessionOfUser } from '../../db/queries/dashboardSessions.js';
import { clearSessionCookie, dashboardUserOf } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';

/** POST /v1/dashboard/auth/logout: 204; the session is revoked and the cookie cleared */
export function signOutHandler(runtime: Runtime): RequestHandler {
  return async (req, res) => {
    const { user, session } = dashboardUserOf(res);
    await revokeSessionOfUser(runtime.db.knex, user.id, session.id, runtime.now());
    clearSessionCookie(runtime, req, res);
    res.status(204).end();
  };
}
