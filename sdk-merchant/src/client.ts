import {
  fetchOrPlatform,
  replayOf,
  retryingFetch,
  type FetchLike,
  type RetryPolicy,
  type RetrySettings,
} from '@paygate/client-core';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/merchant.js';
import { retrySettings, type RetryOptions } from './retry.js';

/** Sent in `User-Agent`; a test keeps it equal to package.json's version. */
export const SDK_VERSION = '0.1.0';

export interface MerchantClientOptions {
  /** Where Paygate runs, e.g. `https://pay.example.com` (no `/v1`). */
  baseUrl: string;
  /** A secret merchant key, `sk_test_…` or `sk_live_…`. Server-side only: never ship it to a browser. */
  apiKey: string;
  merchantId: string;
  /** Default: the platform's `fetch`, looked up at call time. */
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** Your application's name and version, put before the SDK's own in `User-Agent`. */
  userAgent?: string;
}

/** The typed openapi-fetch client of the merchant contract, with authentication, retries and idempotency keys. */
export type MerchantClient = Client<paths>;

/** What the high-level client needs besides the raw one: per-request retry policies are built on the same fetch. */
export interface ClientParts {
  client: MerchantClient;
  fetch: FetchLike;
  retry: RetrySettings;
}

const CREATE_PAYMENT_PATH = '/v1/merchant/payment';

export function buildClient(options: MerchantClientOptions): ClientParts {
  for (const name of ['baseUrl', 'apiKey', 'merchantId'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '') {
      throw new TypeError(`createMerchantClient: ${name} must be a non-empty string`);
    }
  }
  const retry = retrySettings(options.retry);
  const fetch = fetchOrPlatform(options.fetch);
  const userAgent = [options.userAgent, `paygate-sdk-merchant/${SDK_VERSION}`].filter(Boolean).join(' ');
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: retryingFetch(fetch, retry, replayPolicy()) });
  client.use(authMiddleware(options.apiKey, options.merchantId, userAgent));
  return { client, fetch, retry };
}

/**
 * Reads and keyed requests are retried on answers that may follow an applied request; a keyed retry that meets the
 * earlier attempt still in flight waits for it. `replay` overrides the per-request choice (`cancel`, `refund`).
 */
export function replayPolicy(replay: RetryPolicy['replay'] = replayOf, onAmbiguousFailure?: () => void): RetryPolicy {
  return { replay, idempotencyKeys: true, onAmbiguousFailure };
}

/**
 * The raw typed client: every path and operation of the merchant contract, typed from it, with the `Api-Key` and
 * `Merchant-Id` headers set. GETs and keyed requests are retried on transient failures; `createPayment` gets an
 * `Idempotency-Key` when the call has none, so that its retries cannot create a second payment.
 */
export function createMerchantClient(options: MerchantClientOptions): MerchantClient {
  return buildClient(options).client;
}

function authMiddleware(apiKey: string, merchantId: string, userAgent: string): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const { headers } = request;
      // A header given for one call (another key, say) wins over the client's.
      if (!headers.has('Api-Key')) headers.set('Api-Key', apiKey);
      if (!headers.has('Merchant-Id')) headers.set('Merchant-Id', merchantId);
      headers.set('User-Agent', userAgent);
      if (schemaPath === CREATE_PAYMENT_PATH && request.method === 'POST' && !headers.has('Idempotency-Key')) {
        headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
      }
      return request;
    },
  };
}
