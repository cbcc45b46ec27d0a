import type { RequestHandler } from 'express';
import { findUserById } from '../../db/queries/users.js';
import type { operations } from '../../generated/dashboard.js';
import { clientIp, setSessionCookie, type DashboardAuthDeps } from '../../http/dashboardAuth.js';
import { acceptInvitation, type InvitationDeps } from '../../team/invitations.js';
import { reserveLoginAttempt, settleLoginAttempt, throttleKeys } from '../../users/loginThrottle.js';
import { createSession, sessionJson } from '../../users/sessions.js';

type Operation = operations['acceptInvitation'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/**
 * POST /v1/dashboard/invitations/accept (no credential but the token). An existing account's password check counts
 * in the sign-in throttle. An account with a second factor joins, but its session starts only through signIn with a
 * code: a password alone never signs it in.
 */
export function acceptInvitationHandler(
  deps: InvitationDeps & DashboardAuthDeps,
): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const ip = clientIp(req);
    const keys = throttleKeys(deps, req.body.email, ip);
    const accepted = await acceptInvitation(
      deps,
      { token: req.body.token, email: req.body.email, password: req.body.password, ip },
      {
        passwordCost: deps.config.dashboard.passwordCostLog2,
        throttle: {
          reserve: async () => {
            await reserveLoginAttempt(deps, keys);
          },
          settle: (outcome) => settleLoginAttempt(deps, keys, outcome),
        },
      },
    );
    if (accepted.twoFactorEnabled) {
      res.json({ status: 'two_factor_required' });
      return;
    }
    const { token, session } = await createSession(deps, accepted.userId, {
      ip,
      userAgent: req.get('user-agent') ?? null,
    });
    const user = await findUserById(deps.db.knex, accepted.userId);
    if (!user) throw new Error('the user who just joined is gone');
    setSessionCookie(deps, req, res, token, session.expires_at);
    res.json({ status: 'signed_in', session: await sessionJson(deps, { session, user }) });
  };
}
