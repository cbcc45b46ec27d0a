/**
 * Authentication of the merchant interface (`Api-Key` + `Merchant-Id`). It runs before the contract validator,
 * because docs/decisions.md §2 orders the refusals route → body size and type → auth → schema: an unauthenticated
 * caller learns nothing from schema errors. Routes the contract does not define are left to the validator (404/405).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { matchesFormat } from '../accounts/apiKeys.js';
import { CredentialCache } from '../accounts/credentialCache.js';
import { hashKey, parseKey } from '../accounts/keys.js';
import { findActiveKeyWithMerchant, recordKeyUse, type ApiKeyRow, type MerchantRow } from '../db/queries/accounts.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import { ApiError } from '../errors.js';

export interface MerchantAuth {
  key: ApiKeyRow;
  merchant: MerchantRow;
  /** The key's mode, which is the mode of every payment the request may see or create. */
  live: boolean;
}

declare module 'express-serve-static-core' {
  interface Locals {
    merchantAuth?: MerchantAuth;
  }
}

/** The authenticated caller of a merchant route; a route reached without one is a wiring bug, never an open door. */
export function merchantAuthOf(res: Response): MerchantAuth {
  const auth = res.locals.merchantAuth;
  if (!auth) throw new Error('merchant route reached without merchant authentication');
  return auth;
}

export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/** A header's value, checked for non-ASCII and control characters; undefined when absent or empty. */
export function asciiHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value === undefined || value === '') return undefined;
  if (!PRINTABLE_ASCII.test(value)) {
    throw new ApiError('header_not_ascii', `The ${name} header must contain printable ASCII characters only.`);
  }
  return value;
}

const invalidKey = () => new ApiError('invalid_api_key', 'The API key is invalid or has been revoked.');

/** What this runtime keeps for merchant API keys; runtime.ts builds it (`createMerchantKeys`). */
export interface MerchantKeys {
  /** Credentials served for a few seconds, shared by the merchant and dashboard APIs (accounts/credentialCache.ts). */
  cache: CredentialCache<MerchantAuth>;
  /** When this process last recorded each key's use. */
  lastUseWrites: Map<string, number>;
}

export function createMerchantKeys(config: Pick<Config, 'credentialCacheTtlMs'>, now: () => number): MerchantKeys {
  return { cache: new CredentialCache({ ttlMs: config.credentialCacheTtlMs, now }), lastUseWrites: new Map() };
}

/** What authenticating a merchant key needs. */
export interface MerchantAuthDeps {
  config: Pick<Config, 'env'>;
  db: Database;
  now: () => number;
  logger: Logger;
  merchantKeys: MerchantKeys;
}

/** `last_used_at` is written at most this often per key and process, so a busy key costs no write per request. */
export const LAST_USED_INTERVAL_MS = 60_000;

/**
 * Records that a key authenticated, when this process has not recorded it within the last minute: a promise of the
 * write (whose failure is logged, never the request's), or null when nothing is due, so a cached request stays
 * synchronous.
 */
function recordUse(runtime: MerchantAuthDeps, keyId: string): Promise<void> | null {
  const writes = runtime.merchantKeys.lastUseWrites;
  const now = runtime.now();
  const previous = writes.get(keyId);
  if (previous !== undefined && now - previous < LAST_USED_INTERVAL_MS) return null;
  // Bounded like the credential cache: forgetting a key costs one early write, never a wrong answer.
  if (writes.size >= 10_000) writes.clear();
  writes.set(keyId, now);
  return recordKeyUse(runtime.db.knex, keyId, now).catch((err: unknown) => {
    runtime.logger.warn({ err, keyId }, 'could not record the API key use');
  });
}

function withUse(runtime: MerchantAuthDeps, auth: MerchantAuth): MerchantAuth | Promise<MerchantAuth> {
  const write = recordUse(runtime, auth.key.id);
  return write === null ? auth : write.then(() => auth);
}

/**
 * The checks of docs/decisions.md §2 and §12, in their order: headers, then the key, then the merchant. Synchronous
 * when the credential is in the cache, so a cached request waits for nothing.
 */
export function authenticateMerchant(
  runtime: MerchantAuthDeps,
  headers: IncomingHttpHeaders,
  /** The header parameters the operation declares (Idempotency-Key too): here only their characters are checked. */
  declared: string[] = [],
): MerchantAuth | Promise<MerchantAuth> {
  const secret = asciiHeader(headers, 'Api-Key');
  if (secret === undefined) throw new ApiError('missing_merchant_api_key', 'The Api-Key header is required.');
  const merchantId = asciiHeader(headers, 'Merchant-Id');
  if (merchantId === undefined) throw new ApiError('missing_merchant_id', 'The Merchant-Id header is required.');
  for (const name of declared) asciiHeader(headers, name);

  const format = parseKey(secret);
  if (!format || format.kind !== 'merchant') throw invalidKey();
  // Decided from the key's format, before any lookup: a sandbox's database would not know a live key anyway.
  if (runtime.config.env === 'staging' && format.mode === 'live') {
    throw new ApiError('not_sandbox_api_key', 'This server is a sandbox and accepts test keys (sk_test_…) only.');
  }
  // The key and the merchant in one statement; a credential that passes every check below is then served from
  // the cache for a few seconds (only while no revocation happened in this process since it was read).
  const hash = hashKey(secret);
  const cache = runtime.merchantKeys.cache;
  const cacheId = `${hash} ${merchantId}`;
  const cached = cache.read(cacheId);
  if (cached.hit) return withUse(runtime, cached.value);
  return (async () => {
    const found = await findActiveKeyWithMerchant(runtime.db.knex, hash, merchantId);
    if (!found || !matchesFormat(found.key, format) || found.key.partner_id === null) throw invalidKey();
    const { key, merchant } = found;
    if (!merchant) throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
    if (merchant.partner_id !== key.partner_id) {
      throw new ApiError('forbidden', `This API key does not belong to the partner of merchant ${merchantId}.`);
    }
    // A key created in the dashboard is bound to its merchant: it acts for no other, even of the same partner.
    if (key.merchant_id !== null && key.merchant_id !== merchant.id) {
      throw new ApiError('forbidden', `This API key acts for another merchant than ${merchantId} only.`);
    }
    const auth: MerchantAuth = { key, merchant, live: key.mode === 'live' };
    cache.store(cacheId, auth, cached.ticket);
    return withUse(runtime, auth);
  })();
}

/**
 * Authenticates requests to the merchant contract's operations and puts the caller on `res.locals.merchantAuth`. The
 * dashboard's API keys go through `authenticateMerchant` too (http/dashboardAuth.ts): the same key kind, codes and
 * order everywhere.
 */
export function merchantAuth(runtime: MerchantAuthDeps): RequestHandler {
  return (req, res, next) => {
    // The operation `surfaces` matched under this contract's prefixes (http/operations.ts).
    const route = res.locals.operation;
    if (!route) return next();
    // Body type comes before auth in the order of refusals; answered here, so no request passes unauthenticated.
    if (route.hasBody && hasBody(req) && !req.is('application/json')) {
      throw new ApiError('invalid_params', 'Unsupported content type; send application/json.', { status: 415 });
    }
    const auth = authenticateMerchant(runtime, req.headers, route.headers);
    // Express passes a throw, or the rejection of a returned promise, to the error handler.
    if (auth instanceof Promise) {
      return auth.then((found) => {
        res.locals.merchantAuth = found;
        next();
      });
    }
    res.locals.merchantAuth = auth;
    next();
  };
}
