/**
 * Authentication and authorisation of the dashboard API, before the contract validator (docs/decisions.md §2), with
 * two credentials:
 *
 * 1. `Api-Key` + `Merchant-Id`: the merchant API's checks, codes and order (http/merchantAuth.ts); the key's mode is
 *    the mode; the key acts as `developer`; a key bound to a merchant acts for that merchant only.
 * 2. The session cookie + `Merchant-Id` + `Paygate-Mode` (default test): the user's role for the merchant. Every
 *    state-changing request carries `X-CSRF-Token` and, when it has an `Origin` (or `Referer`), comes from this
 *    server's origin.
 *
 * Then the operation's entry in users/roles.ts OPERATION_ROLES decides: 'open' takes no credential, 'session' any
 * signed-in user, a role that role or above (403 forbidden below it). The caller is put on
 * `res.locals.dashboardPrincipal` (merchant operations) and `res.locals.dashboardUser` (sessions).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { recordAudit, type AuditEntry } from '../audit/auditLog.js';
import { findMerchant } from '../db/queries/accounts.js';
import { findMembership } from '../db/queries/users.js';
import { ApiError } from '../errors.js';
import type { Config } from '../config.js';
import type { UsersDeps } from '../users/usersDeps.js';
import { OPERATION_ROLES, roleAllows, type Access, type OperationId, type Role } from '../users/roles.js';
import { csrfTokenMatches, resolveSession, type ActiveSession } from '../users/sessions.js';
import type { Mode } from '../webhooks/endpoints.js';
import { asciiHeader, authenticateMerchant, hasBody, type MerchantAuthDeps } from './merchantAuth.js';
import type { ContractRoute } from './operations.js';

export type DashboardActor =
  { kind: 'user'; userId: string; sessionId: string } | { kind: 'api_key'; keyId: string; prefix: string };

/** Who acts, for which merchant, in which mode, with which role. */
export interface DashboardPrincipal {
  merchantId: string;
  mode: Mode;
  role: Role;
  actor: DashboardActor;
  ip: string | null;
}

declare module 'express-serve-static-core' {
  interface Locals {
    dashboardPrincipal?: DashboardPrincipal;
    /** The signed-in user and session, on every request made with a session. */
    dashboardUser?: ActiveSession;
    /** Non-secret facts a handler adds to the audit entry of its change (a role, a key prefix, a URL). */
    auditDetails?: Record<string, unknown>;
  }
}

export interface DashboardScope {
  merchantId: string;
  mode: Mode;
}

export function dashboardPrincipalOf(res: Response): DashboardPrincipal {
  const principal = res.locals.dashboardPrincipal;
  if (!principal) throw new Error('merchant-scoped dashboard route reached without a principal');
  return principal;
}

/** The merchant and mode a dashboard request acts for. */
export function dashboardScopeOf(res: Response): DashboardScope {
  const { merchantId, mode } = dashboardPrincipalOf(res);
  return { merchantId, mode };
}

/** The signed-in user of a session operation; a route reached without one is a wiring bug. */
export function dashboardUserOf(res: Response): ActiveSession {
  const user = res.locals.dashboardUser;
  if (!user) throw new Error('session dashboard route reached without a session');
  return user;
}

// ---- The session cookie ----

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;

/** What dashboard authentication needs: the users' deps (sessions), the merchant keys' (API keys) and the audit log. */
export interface DashboardAuthDeps extends UsersDeps, MerchantAuthDeps {
  config: UsersDeps['config'] & Pick<Config, 'env' | 'publicBaseUrl'>;
}

/** `paygate_session` on a development server reached on loopback (plain HTTP); `__Host-paygate_session` elsewhere. */
export function sessionCookieName(runtime: DashboardAuthDeps, req: Request): string {
  return isLoopbackDevelopment(runtime, req) ? 'paygate_session' : '__Host-paygate_session';
}

function isLoopbackDevelopment(runtime: DashboardAuthDeps, req: Request): boolean {
  return runtime.config.env === 'development' && LOOPBACK_HOST.test(req.headers.host ?? '');
}

function cookieAttributes(runtime: DashboardAuthDeps, req: Request): string {
  return `Path=/; HttpOnly; SameSite=Strict${isLoopbackDevelopment(runtime, req) ? '' : '; Secure'}`;
}

export function setSessionCookie(
  runtime: DashboardAuthDeps,
  req: Request,
  res: Response,
  token: string,
  expiresAt: number,
): void {
  const maxAge = Math.max(0, Math.floor((expiresAt - runtime.now()) / 1000));
  res.append(
    'Set-Cookie',
    `${sessionCookieName(runtime, req)}=${token}; Max-Age=${maxAge}; ${cookieAttributes(runtime, req)}`,
  );
}

export function clearSessionCookie(runtime: DashboardAuthDeps, req: Request, res: Response): void {
  res.append('Set-Cookie', `${sessionCookieName(runtime, req)}=; Max-Age=0; ${cookieAttributes(runtime, req)}`);
}

/** The session token of the request's cookie header, if any. */
export function sessionTokenOf(runtime: DashboardAuthDeps, req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const name = sessionCookieName(runtime, req);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/** The client's address as Express sees it (PAYGATE_TRUST_PROXY), or null. */
export function clientIp(req: Request): string | null {
  return req.ip ?? null;
}

// ---- Checks ----

const SAFE_METHODS = new Set(['GET', 'HEAD']);

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** The origins a state-changing session request may come from: the public base URL's, and the one it was sent to. */
function ownOrigins(runtime: DashboardAuthDeps, req: Request): string[] {
  const own = [originOf(runtime.config.publicBaseUrl)];
  if (req.headers.host) own.push(originOf(`${req.protocol}://${req.headers.host}`));
  return own.filter((o): o is string => o !== null);
}

function checkCsrf(runtime: DashboardAuthDeps, req: Request, session: ActiveSession): void {
  if (SAFE_METHODS.has(req.method)) return;
  const sent = asciiHeader(req.headers, 'X-CSRF-Token');
  if (!csrfTokenMatches(runtime, session.session.id, sent)) {
    throw new ApiError('forbidden', 'The X-CSRF-Token header is missing or wrong.');
  }
  const origin = asciiHeader(req.headers, 'Origin');
  const referer = origin === undefined ? asciiHeader(req.headers, 'Referer') : undefined;
  const claimed = origin ?? referer;
  if (claimed !== undefined && !ownOrigins(runtime, req).includes(originOf(claimed) ?? '')) {
    throw new ApiError('forbidden', 'Cross-origin requests are not accepted.');
  }
}

function requestedMode(headers: IncomingHttpHeaders): Mode | undefined {
  const raw = asciiHeader(headers, 'Paygate-Mode');
  if (raw === undefined) return undefined;
  if (raw !== 'test' && raw !== 'live') {
    throw new ApiError('params_validation', 'The Paygate-Mode header must be test or live.');
  }
  return raw;
}

const noCredential = () =>
  new ApiError('missing_merchant_api_key', 'Sign in to the dashboard, or send an Api-Key header.');
const sessionNeeded = () =>
  new ApiError('missing_merchant_api_key', 'This operation needs a dashboard session: sign in to the dashboard.');
const sessionEnded = () => new ApiError('unauthorized', 'Your session has expired; sign in again.');

async function viaApiKey(
  runtime: DashboardAuthDeps,
  req: Request,
  route: ContractRoute,
  needed: Role,
): Promise<DashboardPrincipal> {
  const auth = await authenticateMerchant(runtime, req.headers, route.headers);
  if (auth.key.merchant_id !== null && auth.key.merchant_id !== auth.merchant.id) {
    throw new ApiError('forbidden', `This API key acts for another merchant than ${auth.merchant.id}.`);
  }
  const mode: Mode = auth.live ? 'live' : 'test';
  const asked = requestedMode(req.headers);
  if (asked !== undefined && asked !== mode) {
    throw new ApiError(
      'params_validation',
      `The Paygate-Mode header (${asked}) differs from the API key's mode (${mode}).`,
    );
  }
  const role: Role = 'developer';
  if (!roleAllows(role, needed)) {
    throw new ApiError('forbidden', `An API key acts as developer; this operation needs ${needed}: use the dashboard.`);
  }
  return {
    merchantId: auth.merchant.id,
    mode,
    role,
    actor: { kind: 'api_key', keyId: auth.key.id, prefix: auth.key.prefix },
    ip: clientIp(req),
  };
}

async function viaSession(
  runtime: DashboardAuthDeps,
  req: Request,
  res: Response,
  route: ContractRoute,
  access: Access,
): Promise<DashboardPrincipal | null> {
  const token = sessionTokenOf(runtime, req);
  if (token === undefined) throw access === 'session' ? sessionNeeded() : noCredential();
  const active = await resolveSession(runtime, token);
  if (!active) throw sessionEnded();
  checkCsrf(runtime, req, active);
  for (const name of route.headers) asciiHeader(req.headers, name);
  res.locals.dashboardUser = active;
  if (access === 'session') return null;
  const merchantId = asciiHeader(req.headers, 'Merchant-Id');
  if (merchantId === undefined) throw new ApiError('missing_merchant_id', 'The Merchant-Id header is required.');
  const mode = requestedMode(req.headers) ?? 'test';
  // A sandbox serves test mode only, to people as to keys (a live key gets not_sandbox_api_key).
  if (mode === 'live' && runtime.config.env === 'staging') {
    throw new ApiError('forbidden', 'This server is a sandbox: only test mode (Paygate-Mode: test) is available.');
  }
  const membership = await findMembership(runtime.db.knex, active.user.id, merchantId);
  if (!membership) throw new ApiError('forbidden', `You are not a member of merchant ${merchantId}.`);
  const merchant = await findMerchant(runtime.db.knex, merchantId);
  if (!merchant) throw new ApiError('forbidden', `You are not a member of merchant ${merchantId}.`);
  if (merchant.require_two_factor && active.user.totp_enabled_at === null) {
    throw new ApiError('forbidden', 'Your team requires two-factor authentication: enrol in Security.');
  }
  if (!roleAllows(membership.role, access as Role)) {
    throw new ApiError('forbidden', `Your role (${membership.role}) does not allow this; it needs ${access as Role}.`);
  }
  return {
    merchantId,
    mode,
    role: membership.role,
    actor: { kind: 'user', userId: active.user.id, sessionId: active.session.id },
    ip: clientIp(req),
  };
}

/** `deliveryId=whd_…` (several joined by `&`), from the path parameters of the route; null when it has none. */
export function targetOf(route: Pick<ContractRoute, 'template'>, path: string): string | null {
  const names = route.template.split('/');
  const values = path.split('/');
  const parts: string[] = [];
  names.forEach((name, i) => {
    const m = /^\{([^}]+)\}$/.exec(name);
    if (m && values[i] !== undefined) parts.push(`${m[1]}=${decodeURIComponent(values[i]!)}`);
  });
  return parts.length === 0 ? null : parts.join('&');
}

/** Changes that concern the whole merchant, not one mode: their audit entries have no mode. */
const MERCHANT_WIDE = new Set<string>([
  'createInvitation',
  'revokeInvitation',
  'updateMember',
  'removeMember',
  'updateSettings',
  'uploadLogo',
  'removeLogo',
]);

/**
 * Writes the audit entry of a change once its handler answers 2xx, before the answer leaves: when the caller sees
 * the answer, the audit log shows the change. A failed write is logged and the answer still sent (the change is
 * made).
 */
function auditOnSuccess(
  runtime: DashboardAuthDeps,
  req: Request,
  res: Response,
  route: ContractRoute,
  principal: DashboardPrincipal,
): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let done = false;
  res.end = ((...args: unknown[]) => {
    if (done || res.statusCode < 200 || res.statusCode >= 300) return end(...args);
    done = true;
    const entry: AuditEntry = {
      merchantId: principal.merchantId,
      mode: MERCHANT_WIDE.has(route.operationId) ? null : principal.mode,
      actor:
        principal.actor.kind === 'user'
          ? { kind: 'user', id: principal.actor.userId }
          : { kind: 'api_key', id: principal.actor.keyId },
      action: route.operationId,
      target: targetOf(route, req.path),
      details: res.locals.auditDetails ?? null,
      ip: principal.ip,
    };
    recordAudit(runtime, entry)
      .catch((err: unknown) => runtime.logger.error({ err, action: entry.action }, 'audit entry not written'))
      .finally(() => end(...args));
    return res;
  }) as typeof res.end;
}

export function dashboardAuth(runtime: DashboardAuthDeps): RequestHandler {
  return (req, res, next) => {
    const route = res.locals.operation;
    if (!route) return next();
    // Body type comes before auth in the order of refusals; answered here, so no request passes unauthenticated.
    if (route.hasBody && hasBody(req) && !req.is('application/json')) {
      throw new ApiError('invalid_params', 'Unsupported content type; send application/json.', { status: 415 });
    }
    // An operation missing from the table (only possible before a merge adds it) is owner-only, never open.
    const access: Access = OPERATION_ROLES[route.operationId as OperationId] ?? 'owner';
    if (access === 'open') {
      for (const name of route.headers) asciiHeader(req.headers, name);
      return next();
    }
    const withKey = access !== 'session' && asciiHeader(req.headers, 'Api-Key') !== undefined;
    return (
      withKey ? viaApiKey(runtime, req, route, access as Role) : viaSession(runtime, req, res, route, access)
    ).then((principal) => {
      if (principal) {
        res.locals.dashboardPrincipal = principal;
        if (!SAFE_METHODS.has(req.method)) auditOnSuccess(runtime, req, res, route, principal);
      }
      next();
    });
  };
}
