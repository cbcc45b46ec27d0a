/**
 * Authentication of the gateway (`Api-Key`, or `App-Id` + `Client-Id`) and its `Svc-Version`, in the order of
 * docs/decisions.md §2, §3 and §12. Like the merchant's, it runs before the contract validator so that an
 * unauthenticated caller learns nothing from schema errors, and leaves routes the contract does not define to the
 * validator (404/405).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { authenticateKey } from '../accounts/apiKeys.js';
import { parseKey, type Mode } from '../accounts/keys.js';
import type { ApiKeyRow } from '../db/queries/accounts.js';
import { ApiError } from '../errors.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { Metrics } from '../observability/metrics.js';
import { asciiHeader, hasBody } from './merchantAuth.js';
import { authenticatePos } from './posAuth.js';
import { rateLimit } from './rateLimit.js';
import { PREVIEW_VERSIONS, PUBLISHED_VERSIONS } from '../versions.js';

export interface SdkInfo {
  name: string | null;
  version: string | null;
  platform: string | null;
}

export interface GatewayAuth {
  /** The wallet key or the app the request authenticated with. */
  credential: ApiKeyRow;
  /** The credential's mode, which must be the payment's. */
  mode: Mode;
  /** Required with `App-Id`; with `Api-Key` optional and only logged (§12). */
  clientId: string | null;
  /** The version the request is served at: `Svc-Version` / `WCP-Version`, or the credential's pin. */
  version: string;
  /** Informational only: logged, never changes an answer. */
  sdk: SdkInfo;
}

declare module 'express-serve-static-core' {
  interface Locals {
    gatewayAuth?: GatewayAuth;
  }
}

/** The authenticated caller of a gateway route; a route reached without one is a wiring bug, never an open door. */
export function gatewayAuthOf(res: Response): GatewayAuth {
  const auth = res.locals.gatewayAuth;
  if (!auth) throw new Error('gateway route reached without gateway authentication');
  return auth;
}

const AUTH_HEADERS = ['Api-Key', 'App-Id', 'Client-Id', 'Svc-Version', 'WCP-Version'] as const;

/** Header values end up in log lines; a bound keeps a hostile client from bloating them. */
const SDK_VALUE_MAX = 100;

function sdkValue(headers: IncomingHttpHeaders, name: string): string | null {
  const raw = headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  return value === undefined || value === '' ? null : value.slice(0, SDK_VALUE_MAX);
}

const VERSION = /^(\d{4})-(\d{2})-(\d{2})(\.preview)?$/;

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2026-02-30 over into March; a real date survives the round trip.
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const KNOWN_VERSIONS: readonly string[] = [...PUBLISHED_VERSIONS, ...PREVIEW_VERSIONS];

/**
 * §3's rules in their order; `YYYY-MM-DD` strings compare as dates, and a `.preview` by its date (§28).
 * `header` names the header the value came from, for the message.
 */
export function resolveVersion(requested: string | undefined, pinned: string, header = 'Svc-Version'): string {
  if (requested === undefined) return pinned;
  const m = VERSION.exec(requested);
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new ApiError(
      'invalid_api_version',
      `${header} must be a date YYYY-MM-DD, or YYYY-MM-DD.preview; got "${requested}".`,
    );
  }
  const date = requested.slice(0, 10);
  if (date < pinned) {
    throw new ApiError(
      'api_version_downgrade',
      `${header} ${requested} is older than ${pinned}, the version this credential is pinned to.`,
    );
  }
  if (!KNOWN_VERSIONS.includes(requested)) {
    throw new ApiError(
      'unknown_api_version',
      `${header} ${requested} is not a published version (${KNOWN_VERSIONS.join(', ')}).`,
    );
  }
  return requested;
}

function resolveRequestedVersion(
  values: Record<'Svc-Version' | 'WCP-Version', string | undefined>,
  pinned: string,
): string {
  const { value, header } = requestedVersion(values);
  return resolveVersion(value, pinned, header);
}

/** `Svc-Version` and WalletConnect Pay's `WCP-Version` are one header under two names (§28). */
function requestedVersion(values: Record<'Svc-Version' | 'WCP-Version', string | undefined>): {
  value: string | undefined;
  header: string;
} {
  const svc = values['Svc-Version'];
  const wcp = values['WCP-Version'];
  if (svc !== undefined && wcp !== undefined && svc !== wcp) {
    throw new ApiError(
      'invalid_api_version',
      `Svc-Version "${svc}" and WCP-Version "${wcp}" differ; send one version.`,
    );
  }
  return svc !== undefined ? { value: svc, header: 'Svc-Version' } : { value: wcp, header: 'WCP-Version' };
}

/** What authenticating a gateway credential needs. */
export interface GatewayAuthDeps {
  config: Pick<Config, 'env'>;
  db: Database;
}

async function resolveCredential(
  runtime: GatewayAuthDeps,
  secret: string,
  kind: 'wallet' | 'app',
): Promise<{ row: ApiKeyRow; mode: Mode }> {
  const invalid =
    kind === 'wallet'
      ? new ApiError('invalid_api_key', 'The API key is invalid or has been revoked.')
      : new ApiError('invalid_app_id', 'The App-Id is invalid or has been revoked.');
  const format = parseKey(secret);
  if (!format || format.kind !== kind) throw invalid;
  // From the format, before any lookup (§12): a sandbox's database would not know a live credential anyway.
  if (runtime.config.env === 'staging' && format.mode === 'live') {
    throw new ApiError(
      'not_sandbox_api_key',
      'This server is a sandbox and accepts test credentials (wk_test_…, app_test_…) only.',
    );
  }
  const row = await authenticateKey(runtime.db, secret, kind);
  if (!row) throw invalid;
  return { row, mode: row.mode };
}

export async function authenticateGateway(
  runtime: GatewayAuthDeps,
  headers: IncomingHttpHeaders,
): Promise<GatewayAuth> {
  const values = Object.fromEntries(AUTH_HEADERS.map((name) => [name, asciiHeader(headers, name)])) as Record<
    (typeof AUTH_HEADERS)[number],
    string | undefined
  >;
  const apiKey = values['Api-Key'];
  const appId = values['App-Id'];
  const clientId = values['Client-Id'];
  if (apiKey !== undefined && appId !== undefined) {
    throw new ApiError('conflicting_auth_headers', 'Send either Api-Key or App-Id with Client-Id, not both.');
  }
  if (apiKey === undefined && appId === undefined) {
    if (clientId === undefined) {
      throw new ApiError('missing_auth_headers', 'Send Api-Key, or App-Id with Client-Id.');
    }
    throw new ApiError('missing_app_id', 'Client-Id was sent without App-Id.');
  }
  if (appId !== undefined && clientId === undefined) {
    throw new ApiError('missing_client_id', 'App-Id requires the Client-Id header.');
  }
  const { row, mode } =
    apiKey !== undefined
      ? await resolveCredential(runtime, apiKey, 'wallet')
      : await resolveCredential(runtime, appId!, 'app');
  return {
    credential: row,
    mode,
    clientId: clientId ?? null,
    version: resolveRequestedVersion(values, row.pinned_version),
    sdk: {
      name: sdkValue(headers, 'Sdk-Name'),
      version: sdkValue(headers, 'Sdk-Version'),
      platform: sdkValue(headers, 'Sdk-Platform'),
    },
  };
}

/** Authenticates requests to the gateway contract's operations, putting the caller on `res.locals.gatewayAuth`. */
export function gatewayAuth(
  runtime: GatewayAuthDeps & { metrics: Pick<Metrics, 'observeGatewaySdk'> },
): RequestHandler {
  return async (req, res, next) => {
    const route = res.locals.operation;
    if (!route) return next();
    // Body type comes before auth in the order of refusals; answered here, so no request passes unauthenticated.
    if (route.hasBody && hasBody(req) && !req.is('application/json')) {
      throw new ApiError('invalid_params', 'Unsupported content type; send application/json.', { status: 415 });
    }
    // Solana Pay wallets send no credential (docs/decisions.md §19): the contract marks exactly those operations, and
    // their handlers never read `gatewayAuth`, so headers sent anyway change nothing.
    if (route.open) return next();
    // The point-of-sale operations take the terminal's key and nothing else (docs/decisions.md §30.13).
    if (route.posKey) {
      res.locals.posAuth = await authenticatePos(runtime.db, req.path, req.headers);
      return next();
    }
    const auth = await authenticateGateway(runtime, req.headers);
    res.locals.gatewayAuth = auth;
    // WalletConnect Pay answers the version a request was served at; so does every answer from here on (§28).
    res.setHeader('WCP-Version', auth.version);
    runtime.metrics.observeGatewaySdk(auth.sdk);
    next();
  };
}

const SOLANA_PAY_PATH = /^\/v1\/gateway\/payment\/([^/]+)\/solana-pay$/;

/**
 * The limit of a gateway credential (§6): a wallet key's bucket, or one per App-Id + Client-Id, since an app id is
 * public and shared by every installation. Runs after the validator, so Client-Id is at most 128 characters here.
 */
export function gatewayRateLimit(runtime: { config: Pick<Config, 'rateLimit'>; now: () => number }): RequestHandler {
  return rateLimit({ ...runtime.config.rateLimit, now: runtime.now }, (req, res) => {
    const pos = res.locals.posAuth;
    if (pos) return `pos:${pos.terminal.id}`;
    const auth = res.locals.gatewayAuth;
    if (!auth) {
      // The operations without credentials are limited per payment: the id is what their callers hold.
      const solanaPay = SOLANA_PAY_PATH.exec(req.path);
      return solanaPay ? `solana-pay:${solanaPay[1]}` : null;
    }
    return auth.credential.kind === 'app'
      ? `app:${auth.credential.id}:${auth.clientId ?? ''}`
      : `wallet:${auth.credential.id}`;
  });
}
