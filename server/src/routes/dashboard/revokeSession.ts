import type { RequestHandler } from 'express';
import { revokeSessionOfUser } from '../../db/queries/dashboardSessions.js';
import type { operations } from '../../generated/dashboard.js';
import { ApiError } from '../../errors.js';
import { clientIp, dashboardUserOf } from '../../http/dashboardAuth.js';
import type { SecurityEventDeps } from './deps.js';

type Params = operations['revokeSession']['parameters']['path'];

/** DELETE /v1/dashboard/sessions/{sessionId}: 204; another session of the same user can no longer be used */
export function revokeSessionHandler(deps: SecurityEventDeps): RequestHandler<Params> {
  return async (req, res) => {
    const { user } = dashboardUserOf(res);
    if (!(await revokeSessionOfUser(deps.db.knex, user.id, req.params.sessionId, deps.now()))) {
      throw new ApiError('invalid_params', `No session with id ${req.params.sessionId}.`, { status: 404 });
    }
    await deps.securityEvents({
      userId: user.id,
      action: 'revokeSession',
      target: `sessionId=${req.params.sessionId}`,
      details: null,
      ip: clientIp(req),
    });
    res.status(204).end();
  };
}
