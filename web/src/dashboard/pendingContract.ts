/**
 * TEMPORARY (delete at merge): the merchant-data operations the shell's screens use (API keys, settings) as
 * design.md describes them, in openapi-typescript's shape, until data's "Contract: …" commit lands in this branch.
 * The real generated `paths` replaces them; any difference then shows up as a type error in the screens. The people
 * types are the generated contract's already.
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

type Schemas = components['schemas'];
export type Role = Schemas['Role'];
export type Mode = Schemas['DashboardMode'];
export type DashboardSession = Schemas['DashboardSession'];
export type SignInResult = Schemas['SignInResponse'];
export type SessionInfo = Schemas['SessionInfo'];
export type TeamMember = Schemas['TeamMember'];
export type Invitation = Schemas['Invitation'];

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
