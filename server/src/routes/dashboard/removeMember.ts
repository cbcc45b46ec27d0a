import type { RequestHandler } from 'express';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';
import { removeMember, type TeamDeps } from '../../team/team.js';

/** DELETE /v1/dashboard/team/members/{userId}: 204, no body */
export function removeMemberHandler(deps: TeamDeps): RequestHandler<{ userId: string }> {
  return async (req, res) => {
    const { previousRole } = await removeMember(deps, dashboardPrincipalOf(res).merchantId, req.params.userId);
    res.locals.auditDetails = { previousRole };
    res.status(204).end();
  };
}
