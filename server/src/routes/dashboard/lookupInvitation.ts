import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { lookupInvitation, type InvitationDeps, type InvitationPreview } from '../../team/invitations.js';

type Body = operations['lookupInvitation']['requestBody']['content']['application/json'];

/** POST /v1/dashboard/invitations/lookup (no credential; the token is in the body, never in a URL) */
export function lookupInvitationHandler(
  deps: InvitationDeps,
): RequestHandler<Record<string, never>, InvitationPreview, Body> {
  return async (req, res) => {
    res.json(await lookupInvitation(deps, req.body.token));
  };
}
