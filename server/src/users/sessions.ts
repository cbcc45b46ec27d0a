/**
 * Dashboard sessions, server-side: the cookie carries a random 256-bit token, the database its SHA-256 only. A
 * session ends at its absolute expiry (PAYGATE_DASHBOARD_SESSION_TTL after sign-in), after the idle timeout without
 * use (PAYGATE_DASHBOARD_IDLE_TIMEOUT; use is recorded at most once a minute, so a busy session costs no write per
 * request), at sign-out or revocation, or when its user is disabled. Every time comes from `runtime.now()`.
 *
 * The CSRF token is derived, not stored: base64url HMAC-SHA256 of the session id under a key derived from the
 * encryption key, compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  findSessionByTokenHash,
  insertSession,
  listOpenSessions,
  touchSession,
  type SessionRow,
} from '../db/queries/dashboardSessions.js';
import { findUserById, listMembershipsOfUser, type UserRow } from '../db/queries/users.js';
import type { components } from '../generated/dashboard.js';
import { newId } from '../ids.js';
import type { Runtime } from '../runtime.js';
import { keyedHash } from './serverKeys.js';
import { emailOf } from './userAccounts.js';

type DashboardSessionJson = components['schemas']['DashboardSession'];
type SessionInfoJson = components['schemas']['SessionInfo'];

/** How often a session's last use is written, at most. */
export const TOUCH_INTERVAL_MS = 60_000;
const MAX_USER_AGENT = 256;

export interface ActiveSession {
  session: SessionRow;
  user: UserRow;
}

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface ClientFacts {
  ip: string | null;
  userAgent: string | null;
}

/** A new session for a signed-in user; the token goes into the cookie and nowhere else. */
export async function createSession(
  runtime: Runtime,
  userId: string,
  client: ClientFacts,
): Promise<{ token: string; session: SessionRow }> {
  const token = randomBytes(32).toString('base64url');
  const id = newId.session();
  const now = runtime.now();
  const userAgent = client.userAgent?.slice(0, MAX_USER_AGENT) || null;
  const session: SessionRow = {
    id,
    token_hash: tokenHash(token),
    user_id: userId,
    created_at: now,
    last_seen_at: now,
    expires_at: now + runtime.config.dashboard.sessionTtlMs,
    ip_sealed: client.ip ? runtime.secretBox.seal(client.ip, `dashboard_sessions.ip_sealed:${id}`) : null,
    user_agent_sealed: userAgent
      ? runtime.secretBox.seal(userAgent, `dashboard_sessions.user_agent_sealed:${id}`)
      : null,
    revoked_at: null,
  };
  await insertSession(runtime.db.knex, session);
  return { token, session };
}

/** When the session ends without further use: the idle timeout from its last recorded use, capped by its expiry. */
export function idleExpiresAt(runtime: Runtime, session: SessionRow): number {
  return Math.min(session.last_seen_at + runtime.config.dashboard.idleTimeoutMs, session.expires_at);
}

export function isSessionActive(runtime: Runtime, session: SessionRow, now = runtime.now()): boolean {
  return session.revoked_at === null && now < session.expires_at && now < idleExpiresAt(runtime, session);
}

/**
 * The session a cookie's token names, if it is still active, and its user; records the use (at most once a
 * minute). Null for an unknown, revoked, expired or idle session, or a disabled user.
 */
export async function resolveSession(runtime: Runtime, token: string): Promise<ActiveSession | null> {
  if (token.length === 0 || token.length > 128) return null;
  const session = await findSessionByTokenHash(runtime.db.knex, tokenHash(token));
  const now = runtime.now();
  if (!session || !isSessionActive(runtime, session, now)) return null;
  const user = await findUserById(runtime.db.knex, session.user_id);
  if (!user || user.disabled_at !== null) return null;
  if (now - session.last_seen_at >= TOUCH_INTERVAL_MS) {
    await touchSession(runtime.db.knex, session.id, now);
    session.last_seen_at = now;
  }
  return { session, user };
}

export function csrfTokenOf(runtime: Runtime, sessionId: string): string {
  return keyedHash(runtime, 'csrf', sessionId).toString('base64url');
}

/** Whether `sent` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(runtime: Runtime, sessionId: string, sent: string | undefined): boolean {
  if (sent === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(runtime, sessionId), 'utf8');
  const actual = Buffer.from(sent, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The contract's DashboardSession: the user, their merchants, the CSRF token and the two expiries. */
export async function sessionJson(runtime: Runtime, active: ActiveSession): Promise<DashboardSessionJson> {
  const { session, user } = active;
  return {
    user: { id: user.id, email: emailOf(runtime, user), twoFactorEnabled: user.totp_enabled_at !== null },
    memberships: await listMembershipsOfUser(runtime.db.knex, user.id),
    csrfToken: csrfTokenOf(runtime, session.id),
    expiresAt: seconds(session.expires_at),
    idleExpiresAt: seconds(idleExpiresAt(runtime, session)),
  };
}

/** The user's active sessions for `listSessions`, newest first, the current one marked. */
export async function listSessionsOfUser(runtime: Runtime, current: ActiveSession): Promise<SessionInfoJson[]> {
  const now = runtime.now();
  const rows = await listOpenSessions(runtime.db.knex, current.user.id, now);
  return rows
    .filter((s) => isSessionActive(runtime, s, now))
    .map((s) => ({
      id: s.id,
      createdAt: seconds(s.created_at),
      lastSeenAt: seconds(s.last_seen_at),
      expiresAt: seconds(s.expires_at),
      ip: s.ip_sealed ? runtime.secretBox.open(s.ip_sealed, `dashboard_sessions.ip_sealed:${s.id}`) : null,
      userAgent: s.user_agent_sealed
        ? runtime.secretBox.open(s.user_agent_sealed, `dashboard_sessions.user_agent_sealed:${s.id}`)
        : null,
      current: s.id === current.session.id,
    }));
}
