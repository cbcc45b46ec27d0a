import type { RequestHandler } from 'express';
import { revokeSessionOfUser } from '../../db/queries/dashboardSessions.js';
import type { operations } from '../../generated/dashboard.js';
import { ApiError } from '../../errors.js';
import { clientIp, dashboardUserOf } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';

type Params = operations['revokeSession']['parameters']['path'];

/** DELETE /v1/dashboard/sessions/{sessionId}: 204; another session of the same user can no longer be used */
export function revokeSessionHandler(runtime: Runtime): RequestHandler<Params> {
  return async (req, res) => {
    const { user } = dashboardUserOf(res);
    if (!(await revokeSessionOfUser(runtime.db.knex, user.id, req.params.sessionId, runtime.now()))) {
      throw new ApiError('invalid_params', `No session with id ${req.params.sessionId}.`, { status: 404 });
    }
    await runtime.securityEvents({
      userId: user.id,
      action: 'revokeSession',
      target: `sessionId=${req.params.sessionId}`,
      details: null,
      ip: clientIp(req),
    });
    res.status(204).end();
  };
}
