import type { RequestHandler } from 'express';
import { findUserById } from '../../db/queries/users.js';
import type { operations } from '../../generated/dashboard.js';
import { clientIp, setSessionCookie } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';
import { acceptInvitation } from '../../team/invitations.js';
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
export function acceptInvitationHandler(runtime: Runtime): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const ip = clientIp(req);
    const keys = throttleKeys(runtime, req.body.email, ip);
    const accepted = await acceptInvitation(
      runtime,
      { token: req.body.token, email: req.body.email, password: req.body.password, ip },
      {
        passwordCost: runtime.config.dashboard.passwordCostLog2,
        throttle: {
          reserve: async () => {
            await reserveLoginAttempt(runtime, keys);
          },
          settle: (outcome) => settleLoginAttempt(runtime, keys, outcome),
        },
      },
    );
    if (accepted.twoFactorEnabled) {
      res.json({ status: 'two_factor_required' });
      return;
    }
    const { token, session } = await createSession(runtime, accepted.userId, {
      ip,
      userAgent: req.get('user-agent') ?? null,
    });
    const user = await findUserById(runtime.db.knex, accepted.userId);
    if (!user) throw new Error('the user who just joined is gone');
    setSessionCookie(runtime, req, res, token, session.expires_at);
    res.json({ status: 'signed_in', session: await sessionJson(runtime, { session, user }) });
  };
}
