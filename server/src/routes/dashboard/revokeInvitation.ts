import type { RequestHandler } from 'express';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';
import { revokeInvitation, type InvitationDeps } from '../../team/invitations.js';

/** DELETE /v1/dashboard/team/invitations/{invitationId}: 204, no body */
export function revokeInvitationHandler(deps: InvitationDeps): RequestHandler<{ invitationId: string }> {
  return async (req, res) => {
    await revokeInvitation(deps, dashboardPrincipalOf(res).merchantId, req.params.invitationId);
    res.locals.auditDetails = { invitationId: req.params.invitationId };
    res.status(204).end();
  };
}
