/**
 * Authentication of the dashboard API. Its credential is the merchant's: `Api-Key` + `Merchant-Id`, checked with the
 * same codes in the same order as the merchant API (http/merchantAuth.ts), before the contract validator. The key's
 * mode selects what is addressed: a test key manages the test endpoint and sees test deliveries only.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { operations } from '../generated/dashboard.js';
import type { Runtime } from '../runtime.js';
import type { Mode } from '../webhooks/endpoints.js';
import { merchantAuthOf, merchantKeyAuth } from './merchantAuth.js';

export function dashboardAuth(runtime: Runtime): RequestHandler {
  return merchantKeyAuth(runtime, 'dashboard');
}

export interface DashboardScope {
  merchantId: string;
  mode: Mode;
}

/** The merchant and mode a dashboard request acts for. */
export function dashboardScopeOf(res: Response): DashboardScope {
  const auth = merchantAuthOf(res);
  return { merchantId: auth.merchant.id, mode: auth.live ? 'live' : 'test' };
}

// team-helper stand-in: BEGIN. The auth helper's dashboardAuth.ts defines the principal and starts sessions; the
// integrator replaces this block with theirs (same names, the shape of /tmp/i16/design.md "Principal").
export type DashboardRoleName = 'owner' | 'developer' | 'viewer';

export interface DashboardPrincipal {
  merchantId: string;
  mode: 'test' | 'live';
  role: DashboardRoleName;
  actor: { kind: 'user'; userId: string; sessionId: string } | { kind: 'api_key'; keyId: string; prefix: string };
  ip: string | null;
}

declare module 'express-serve-static-core' {
  interface Locals {
    dashboardPrincipal?: DashboardPrincipal;
  }
}

/** The resolved principal of a merchant-scoped dashboard request; a route reached without one is a wiring bug. */
export function dashboardPrincipalOf(res: Response): DashboardPrincipal {
  const principal = res.locals.dashboardPrincipal;
  if (!principal) throw new Error('dashboard route reached without a dashboard principal');
  return principal;
}

/** Starts a session for a user who just proved who they are (sets the cookie) and answers it as `signIn` does. */
export function startDashboardSession(
  _runtime: Runtime,
  _req: Request,
  _res: Response,
  _userId: string,
): Promise<
  Extract<
    operations['acceptInvitation']['responses'][200]['content']['application/json'],
    { status: 'signed_in' }
  >['session']
> {
  return Promise.reject(new Error('startDashboardSession is the auth helper’s: replace this stand-in at the merge'));
}
// team-helper stand-in: END
