/**
 * Dashboard users and sessions for HTTP tests: people are created through the users module (as `paygate admin
 * create-user` does), sign in through the API, and call it with their cookie, CSRF token, Merchant-Id and mode.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { Runtime } from '@paygate/server';
import type { RoleName } from '../../server/src/db/queries/users.js';
import { createSession, csrfTokenOf } from '../../server/src/users/sessions.js';
import { currentCode } from '../../server/src/users/twoFactor.js';
import { addMembership, createUser } from '../../server/src/users/userAccounts.js';
import type { Harness } from '../merchant/harness.js';

export interface Person {
  userId: string;
  email: string;
  password: string;
}

let seq = 0;

/** A new user, member of `merchantId` with `role` when given. */
export async function createPerson(
  runtime: Runtime,
  options: { merchantId?: string; role?: RoleName } = {},
): Promise<Person> {
  const email = `person${++seq}.${Date.now()}@shop.example.com`;
  const password = `correct horse battery ${seq}`;
  const user = await createUser(runtime, { email, password });
  if (options.merchantId) await addMembership(runtime, user.id, options.merchantId, options.role ?? 'owner');
  return { userId: user.id, email, password };
}

export interface SignedIn {
  /** `name=value` for a Cookie header. */
  cookie: string;
  /** The whole Set-Cookie header. */
  setCookie: string;
  csrfToken: string;
  sessionId?: string;
  session: Record<string, unknown>;
}

export interface SessionCallOptions {
  body?: unknown;
  merchantId?: string;
  mode?: 'test' | 'live';
  /** Extra headers; a null value removes one (e.g. 'X-CSRF-Token': null). */
  headers?: Record<string, string | null>;
}

/** Calls the API with a session: its cookie, its CSRF token, and Merchant-Id / Paygate-Mode when given. */
export function callAs(
  h: Harness,
  who: Pick<SignedIn, 'cookie' | 'csrfToken'>,
  method: string,
  path: string,
  o: SessionCallOptions = {},
) {
  const headers: Record<string, string | null> = {
    Cookie: who.cookie,
    'X-CSRF-Token': who.csrfToken,
    ...(o.merchantId ? { 'Merchant-Id': o.merchantId } : {}),
    ...(o.mode ? { 'Paygate-Mode': o.mode } : {}),
    ...(o.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...o.headers,
  };
  const sent = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null));
  return fetch(`${h.server.url}${path}`, {
    method,
    headers: sent,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
}

export function postLogin(h: Harness, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${h.server.url}/v1/dashboard/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The session cookie a response set, as `name=value`. */
export function cookieOf(res: Response): { cookie: string; setCookie: string } {
  const setCookie = res.headers.getSetCookie().find((c) => /paygate_session=/.test(c));
  assert.ok(setCookie, 'a session cookie was set');
  return { cookie: setCookie.split(';')[0]!, setCookie };
}

/** Signs in through the API (with a TOTP code of `totpSecret` when given) and expects success. */
export async function signInAs(h: Harness, person: Person, extra: Record<string, unknown> = {}): Promise<SignedIn> {
  const res = await postLogin(h, { email: person.email, password: person.password, ...extra });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const body = JSON.parse(text) as { status: string; session: Record<string, unknown> & { csrfToken: string } };
  assert.equal(body.status, 'signed_in', text);
  return { ...cookieOf(res), csrfToken: body.session.csrfToken, session: body.session };
}

/** A session made directly through the users module (no HTTP sign-in), for tables of requests. */
export async function sessionFor(h: Harness, person: Person): Promise<SignedIn> {
  const { token, session } = await createSession(h.runtime, person.userId, { ip: '127.0.0.1', userAgent: null });
  return {
    cookie: `paygate_session=${token}`,
    setCookie: '',
    csrfToken: csrfTokenOf(h.runtime, session.id),
    sessionId: session.id,
    session: {},
  };
}

/** The authenticator app's current code for a secret, at the harness clock. */
export function codeAt(h: Harness, secret: string, offsetMs = 0): string {
  return currentCode(secret, h.clock.now() + offsetMs);
}

/** A raw HTTP request with a chosen Host header (fetch cannot set one). */
export function rawRequest(
  h: Harness,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(h.server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: options.method, path: options.path, headers: options.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
