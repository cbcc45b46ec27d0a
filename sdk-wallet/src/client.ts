import {
  fetchOrPlatform,
  retrySettings,
  retryingFetch,
  type FetchLike,
  type RetryOptions,
  type RetrySettings,
} from '@paygate/client-core';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/gateway.js';

/** Sent in `Sdk-Name`. */
export const SDK_NAME = '@paygate/sdk-wallet';
/** Sent in `Sdk-Version`; a test keeps it equal to package.json's version. */
export const SDK_VERSION = '0.1.0';
/**
 * The contract version this SDK was built from, sent in `Svc-Version` so that every request is served at it, whatever
 * version the credential was pinned to when it was created.
 */
export const SVC_VERSION = '2026-02-18';

/**
 * The two authentication modes of the gateway, exactly one per client:
 *
 * - `apiKey`: a secret wallet key (`wk_test_…` / `wk_live_…`), for a wallet backend only. `clientId` is optional
 *   here and only logged by the server.
 * - `appId` + `clientId`: a public app id (`app_test_…` / `app_live_…`), which may ship inside an app, with an id of
 *   the installation (1–128 printable ASCII characters, e.g. a random UUID kept on the device). The server's rate
 *   limit applies per app id and client id.
 */
export type GatewayCredentials =
  { apiKey: string; clientId?: string; appId?: never } | { appId: string; clientId: string; apiKey?: never };

export type GatewayClientOptions = GatewayCredentials & {
  /** Where Paygate runs, e.g. `https://pay.example.com` (no `/v1`). */
  baseUrl: string;
  /** Default: the platform's `fetch`, looked up at call time. */
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** Default `SVC_VERSION`, the version this SDK speaks; `null` sends none (the credential's pinned version). */
  svcVersion?: string | null;
  /** Sent in `Sdk-Platform`. Default: `node`, `react-native` or `web`, detected. */
  sdkPlatform?: string;
};

/** The typed openapi-fetch client of the gateway contract, with authentication, the `Sdk-*` headers and retries. */
export type GatewayClient = Client<paths>;

/** What the high-level client needs besides the raw one. */
export interface ClientParts {
  client: GatewayClient;
  retry: RetrySettings;
}

export function buildClient(options: GatewayClientOptions): ClientParts {
  if (typeof options.baseUrl !== 'string' || options.baseUrl === '') {
    throw new TypeError('baseUrl must be a non-empty string');
  }
  const credentials = credentialHeaders(options);
  const retry = retrySettings(options.retry);
  // Every gateway operation may be repeated safely (the contract: reads and options change nothing, cancel of a
  // cancelled payment answers it again, confirm with the same results answers the current status), so a 5xx or a
  // dropped connection, which can follow a request the server did apply, is retried for all of them.
  const fetch = retryingFetch(fetchOrPlatform(options.fetch), retry, { replay: 'idempotent' });
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch });
  const svcVersion = options.svcVersion === undefined ? SVC_VERSION : options.svcVersion;
  client.use(headersMiddleware(credentials, svcVersion, options.sdkPlatform ?? detectPlatform()));
  return { client, retry };
}

/**
 * The raw typed client: every operation of the gateway contract (getPaymentOptions, fetchAction, confirmPayment,
 * getPayment, getPaymentStatus, cancelPayment), typed from it, with the credential, `Svc-Version` and `Sdk-*` headers
 * set, and 5xx, 429 and network failures retried. It answers `{ data, error, response }` instead of throwing.
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  return buildClient(options).client;
}

function credentialHeaders(options: GatewayClientOptions): [string, string][] {
  const nonEmpty = (value: unknown) => typeof value === 'string' && value !== '';
  const { apiKey, appId, clientId } = options as { apiKey?: unknown; appId?: unknown; clientId?: unknown };
  if (apiKey !== undefined && appId !== undefined) {
    throw new TypeError('Give apiKey, or appId with clientId, not both');
  }
  if (clientId !== undefined && !nonEmpty(clientId)) throw new TypeError('clientId must be a non-empty string');
  if (apiKey !== undefined) {
    if (!nonEmpty(apiKey)) throw new TypeError('apiKey must be a non-empty string');
    return [
      ['Api-Key', apiKey as string],
      ...(clientId ? [['Client-Id', clientId as string] as [string, string]] : []),
    ];
  }
  if (appId === undefined) throw new TypeError('Give apiKey, or appId with clientId');
  if (!nonEmpty(appId)) throw new TypeError('appId must be a non-empty string');
  if (clientId === undefined) throw new TypeError('appId needs a clientId (an id of this installation)');
  return [
    ['App-Id', appId as string],
    ['Client-Id', clientId as string],
  ];
}

function headersMiddleware(credentials: [string, string][], svcVersion: string | null, platform: string): Middleware {
  return {
    onRequest({ request }) {
      const { headers } = request;
      // Credentials given for one call (another key, say) win over the client's.
      if (!headers.has('Api-Key') && !headers.has('App-Id')) {
        for (const [name, value] of credentials) headers.set(name, value);
      }
      if (svcVersion !== null && !headers.has('Svc-Version')) headers.set('Svc-Version', svcVersion);
      headers.set('Sdk-Name', SDK_NAME);
      headers.set('Sdk-Version', SDK_VERSION);
      headers.set('Sdk-Platform', platform);
      return request;
    },
  };
}

/** Without touching any API a browser lacks: `process` is only read when it exists. */
export function detectPlatform(): string {
  const scope = globalThis as { process?: { versions?: { node?: unknown } }; navigator?: { product?: unknown } };
  if (scope.navigator?.product === 'ReactNative') return 'react-native';
  if (typeof scope.process?.versions?.node === 'string') return 'node';
  return 'web';
}
