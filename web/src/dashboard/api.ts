/**
 * The dashboard API client: openapi-fetch over the generated contract types (a type-only import: nothing of the
 * server reaches the bundle). The session cookie goes with every request (same origin); a middleware adds the
 * headers a session request needs: `Merchant-Id` and `Paygate-Mode` (the merchant switcher and the mode switch) and,
 * on every state-changing request, `X-CSRF-Token`. A 401 of the session read means the session ended: the app goes
 * to the sign-in page; a 401 of another operation makes the app read the session to find out (a wrong 2FA code is a
 * 401 too, and must not sign the user out).
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/dashboard.js';

export type Mode = 'test' | 'live';
export type DashboardClient = Client<paths>;

export interface ClientState {
  csrfToken(): string | null;
  merchantId(): string | null;
  mode(): Mode;
  /** A 401 from the session read: the session expired, was revoked, or never existed. */
  onUnauthorized(): void;
  /**
   * A 401 from another operation that needs a session: either the session ended, or the operation refused a wrong
   * password or code (2FA changes answer 401 for those too). The app reads the session to tell which.
   */
  onRefused(): void;
}

/** Operations that take no session (they answer 401 for a wrong password or code, which the form shows). */
const OPEN_PATHS = /\/v1\/dashboard\/(auth\/login|invitations\/(lookup|accept))$/;
const SESSION_PATH = '/v1/dashboard/session';

export function createDashboardClient(state: ClientState, baseUrl = location.origin): DashboardClient {
  const client = createClient<paths>({ baseUrl, credentials: 'same-origin' });
  const headers: Middleware = {
    onRequest({ request }) {
      const merchantId = state.merchantId();
      if (merchantId) request.headers.set('Merchant-Id', merchantId);
      request.headers.set('Paygate-Mode', state.mode());
      const csrf = state.csrfToken();
      if (csrf && request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('X-CSRF-Token', csrf);
      return request;
    },
    onResponse({ request, response }) {
      const path = new URL(request.url).pathname;
      if (response.status === 401 && path === SESSION_PATH) state.onUnauthorized();
      else if (response.status === 401 && !OPEN_PATHS.test(path)) state.onRefused();
      return response;
    },
  };
  client.use(headers);
  return client;
}
