import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { startDashboardSession } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';
import { acceptInvitation } from '../../team/invitations.js';

type Operation = operations['acceptInvitation'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/**
 * POST /v1/dashboard/invitations/accept (no credential but the token). An existing account with a second factor
 * joins, but its session starts only through signIn with a code: a password alone never signs it in.
 */
export function acceptInvitationHandler(runtime: Runtime): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const accepted = await acceptInvitation(runtime, { ...req.body, ip: req.ip ?? null });
    if (accepted.twoFactorEnabled) {
      res.json({ status: 'two_factor_required' });
      return;
    }
    res.json({ status: 'signed_in', session: await startDashboardSession(runtime, req, res, accepted.userId) });
  };
}
