import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';
import { ApiError } from '../../errors.js';
import { createInvitation, type InvitationDeps } from '../../team/invitations.js';

type Operation = operations['createInvitation'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/dashboard/team/invitations: 201, the link shown once (never in the audit details) */
export function createInvitationHandler(deps: InvitationDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const principal = dashboardPrincipalOf(res);
    // Owner-only (users/roles.ts), and an API key is never an owner; this guards the invitation's `created_by`.
    if (principal.actor.kind !== 'user')
      throw new ApiError('forbidden', 'Invitations are created by a signed-in owner.');
    const created = await createInvitation(deps, principal.merchantId, principal.actor.userId, req.body.role);
    res.locals.auditDetails = { invitationId: created.invitation.id, role: created.invitation.role };
    res.status(201).json(created);
  };
}
