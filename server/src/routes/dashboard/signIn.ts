import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { clientIp, setSessionCookie, type DashboardAuthDeps } from '../../http/dashboardAuth.js';
import { sessionJson } from '../../users/sessions.js';
import { signIn, type SignInDeps } from '../../users/signIn.js';

type Body = operations['signIn']['requestBody']['content']['application/json'];
type Ok = operations['signIn']['responses'][200]['content']['application/json'];

/** POST /v1/dashboard/auth/login: the session cookie and the session, or `two_factor_required` */
export function signInHandler(deps: SignInDeps & DashboardAuthDeps): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const client = { ip: clientIp(req), userAgent: req.get('user-agent') ?? null };
    const result = await signIn(deps, req.body, client);
    if (result.status === 'two_factor_required') {
      res.json({ status: 'two_factor_required' });
      return;
    }
    setSessionCookie(deps, req, res, result.token, result.active.session.expires_at);
    res.json({ status: 'signed_in', session: await sessionJson(deps, result.active) });
  };
}
