/**
 * TEMPORARY (delete at merge): the people and merchant-data operations of the dashboard contract as design.md
 * describes them, in openapi-typescript's shape, until their "Contract: …" commits land in this branch. The real
 * generated `paths` replaces this file; any difference then shows up as a type error in the screens.
 */
import type { components } from '../../../server/src/generated/dashboard';

type Headers = { [name: string]: unknown };
type Json<T> = { headers: Headers; content: { 'application/json': T } };
type NoContent = { headers: Headers; content?: never };
type Failure = Json<components['schemas']['ErrorResponse'] & { param?: string }>;
type Failures = { 400: Failure; 401: Failure; 403: Failure; 404: Failure; 409: Failure; 429: Failure };
type Params<P, Q> = { query?: Q; header?: never; path: P; cookie?: never };
type NoParams = { query?: never; header?: never; path?: never; cookie?: never };
type Op<Body, Success, P = never> = {
  parameters: [P] extends [never] ? NoParams : Params<P, never>;
  responses: Success & Failures;
} & ([Body] extends [never] ? { requestBody?: never } : { requestBody: { content: { 'application/json': Body } } });
type Ok<T> = { 200: Json<T> };
type Done = { 204: NoContent };
type PathItem<Ops> = { parameters: NoParams } & Ops;

export type Role = 'owner' | 'developer' | 'viewer';
export type Mode = 'test' | 'live';

export interface DashboardSession {
  user: { id: string; email: string; twoFactorEnabled: boolean };
  memberships: { merchantId: string; merchantName: string; role: Role; requireTwoFactor: boolean }[];
  csrfToken: string;
  expiresAt: number;
  idleExpiresAt: number;
}
export type SignInResult = { status: 'signed_in'; session: DashboardSession } | { status: 'two_factor_required' };
export interface SessionInfo {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
}
export interface TeamMember {
  userId: string;
  email: string;
  role: Role;
  twoFactorEnabled: boolean;
  joinedAt: number;
}
export interface Invitation {
  id: string;
  role: Role;
  createdAt: number;
  expiresAt: number;
}
export interface ApiKey {
  id: string;
  prefix: string;
  mode: Mode;
  label: string | null;
  scope: 'merchant' | 'partner';
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}
export interface Settings {
  name: string;
  iconUrl: string | null;
  settlementAddresses: Record<string, string>;
  collectData: boolean;
  requireTwoFactor: boolean;
}

export interface PendingPaths {
  '/v1/dashboard/auth/login': PathItem<{
    post: Op<{ email: string; password: string; totpCode?: string; recoveryCode?: string }, Ok<SignInResult>>;
  }>;
  '/v1/dashboard/auth/logout': PathItem<{ post: Op<never, Done> }>;
  '/v1/dashboard/session': PathItem<{ get: Op<never, Ok<DashboardSession>> }>;
  '/v1/dashboard/sessions': PathItem<{ get: Op<never, Ok<{ sessions: SessionInfo[] }>> }>;
  '/v1/dashboard/sessions/{sessionId}': PathItem<{ delete: Op<never, Done, { sessionId: string }> }>;
  '/v1/dashboard/two-factor/enrol': PathItem<{ post: Op<never, Ok<{ secret: string; otpauthUri: string }>> }>;
  '/v1/dashboard/two-factor/activate': PathItem<{ post: Op<{ code: string }, Ok<{ recoveryCodes: string[] }>> }>;
  '/v1/dashboard/two-factor/disable': PathItem<{ post: Op<{ password: string; code: string }, Done> }>;
  '/v1/dashboard/two-factor/recovery-codes': PathItem<{
    post: Op<{ code: string }, Ok<{ recoveryCodes: string[] }>>;
  }>;
  '/v1/dashboard/team': PathItem<{ get: Op<never, Ok<{ members: TeamMember[]; invitations: Invitation[] }>> }>;
  '/v1/dashboard/team/invitations': PathItem<{
    post: Op<{ role: Role }, { 201: Json<{ invitation: Invitation; inviteUrl: string }> }>;
  }>;
  '/v1/dashboard/team/invitations/{invitationId}': PathItem<{
    delete: Op<never, Done, { invitationId: string }>;
  }>;
  '/v1/dashboard/team/members/{userId}': PathItem<{
    patch: Op<{ role: Role }, Ok<TeamMember>, { userId: string }>;
    delete: Op<never, Done, { userId: string }>;
  }>;
  '/v1/dashboard/invitations/lookup': PathItem<{
    post: Op<{ token: string }, Ok<{ merchantName: string; role: Role; expiresAt: number }>>;
  }>;
  '/v1/dashboard/invitations/accept': PathItem<{
    post: Op<{ token: string; email: string; password: string }, Ok<SignInResult>>;
  }>;
  '/v1/dashboard/api-keys': PathItem<{
    get: Op<never, Ok<{ data: ApiKey[] }>>;
    post: Op<{ mode: Mode; label?: string }, { 201: Json<{ apiKey: ApiKey; secret: string }> }>;
  }>;
  '/v1/dashboard/api-keys/{keyId}': PathItem<{ delete: Op<never, Done, { keyId: string }> }>;
  '/v1/dashboard/api-keys/{keyId}/rotate': PathItem<{
    post: Op<never, Ok<{ apiKey: ApiKey; secret: string; revoked: ApiKey }>, { keyId: string }>;
  }>;
  '/v1/dashboard/settings': PathItem<{
    get: Op<never, Ok<Settings>>;
    patch: Op<Partial<Settings>, Ok<Settings>>;
  }>;
}
