/** A real server over a real database for merchant tests: requests go through fetch, responses are contract-checked. */
import { createApp, type Database, type Runtime, type RuntimeOptions } from '@paygate/server';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';
import { expectError, expectJson } from '../helpers/responses.js';

export interface Harness {
  runtime: Runtime;
  clock: TestClock;
  server: Listening;
  account: MerchantAccount;
  /** A request with the test key of `account` unless `headers` says otherwise (a null value removes a header). */
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** The same harness, with these headers added to every request (a test's own values still win). */
  withHeaders(headers: Record<string, string | null>): Harness;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  /** The raw body, sent as is. */
  raw?: string;
  headers?: Record<string, string | null>;
  live?: boolean;
}

export async function startHarness(
  options: {
    db?: Database;
    config?: Record<string, string>;
    feeConfig?: unknown;
    signInGate?: RuntimeOptions['signInGate'];
    chains?: RuntimeOptions['chains'];
  } = {},
): Promise<Harness> {
  const clock = testClock();
  // The clock stands still unless a test moves it, so no bucket would ever refill: limits are off unless asked for.
  const config = { PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000', ...options.config };
  const runtime = await testRuntime({
    db: options.db,
    clock,
    config,
    signInGate: options.signInGate,
    chains: options.chains,
  });
  const server = await listen(createApp({ runtime, validateResponses: true }));
  const account = await createMerchantAccount(runtime, { feeConfig: options.feeConfig });
  const call = (method: string, path: string, o: CallOptions = {}) => {
    const headers: Record<string, string | null> = {
      'Api-Key': o.live ? account.liveKey : account.testKey,
      'Merchant-Id': account.merchantId,
      ...(o.body !== undefined || o.raw !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...o.headers,
    };
    const sent = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null));
    return fetch(`${server.url}${path}`, {
      method,
      headers: sent,
      body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
    });
  };
  const harness = (base: Record<string, string | null>): Harness => ({
    runtime,
    clock,
    server,
    account,
    call: (method, path, o = {}) => call(method, path, { ...o, headers: { ...base, ...o.headers } }),
    withHeaders: (headers) => harness({ ...base, ...headers }),
    async close() {
      await server.close();
      await runtime.close();
    },
  });
  return harness({});
}

export { expectError, expectJson };

export const usd = (value = '1250') => ({ amount: { unit: 'iso4217/USD', value }, referenceId: 'order_1' });

export interface Created {
  paymentId: string;
  gatewayUrl: string;
  status: string;
  expiresAt: number;
  isFinal: boolean;
  pollInMs: number;
}

export async function createPayment(
  h: Harness,
  body: unknown = usd(),
  options: Omit<CallOptions, 'body'> = {},
): Promise<Created> {
  return expectJson<Created>(await h.call('POST', '/v1/merchant/payment', { ...options, body }), 201);
}

/** Every operation of the merchant contract, for checks that apply to all of them. */
export interface Operation {
  name: string;
  method: 'GET' | 'POST';
  path: (paymentId: string) => string;
  body?: unknown;
  /** Whether the operation takes a JSON body (so 413 and 415 apply). */
  hasBody: boolean;
  /** Whether the operation names one payment (so payment_not_found applies). */
  byId: boolean;
}

export const operations: Operation[] = [
  {
    name: 'createPayment',
    method: 'POST',
    path: () => '/v1/merchant/payment',
    body: usd(),
    hasBody: true,
    byId: false,
  },
  { name: 'getPayment', method: 'GET', path: (id) => `/v1/merchant/payment/${id}`, hasBody: false, byId: true },
  {
    name: 'getPaymentStatus',
    method: 'GET',
    path: (id) => `/v1/merchant/payment/${id}/status`,
    hasBody: false,
    byId: true,
  },
  {
    name: 'getPaymentStatusAlias',
    method: 'GET',
    path: (id) => `/v1/payments/${id}/status`,
    hasBody: false,
    byId: true,
  },
  { name: 'listPayments', method: 'GET', path: () => '/v1/merchant/payments', hasBody: false, byId: false },
  { name: 'listPaymentsAlias', method: 'GET', path: () => '/v1/payments', hasBody: false, byId: false },
  {
    name: 'cancelPayment',
    method: 'POST',
    path: (id) => `/v1/merchant/payment/${id}/cancel`,
    body: {},
    hasBody: true,
    byId: true,
  },
  {
    name: 'refundPayment',
    method: 'POST',
    path: (id) => `/v1/merchant/payment/${id}/refund`,
    body: {},
    hasBody: true,
    byId: true,
  },
  {
    name: 'simulatePayment',
    method: 'POST',
    path: (id) => `/v1/merchant/test/payment/${id}/simulate`,
    body: { to: 'processing' },
    hasBody: true,
    byId: true,
  },
  { name: 'getFeeBalance', method: 'GET', path: () => '/v1/merchant/fees', hasBody: false, byId: false },
];

/** Moves a test payment through `steps` with the simulate call, asserting each step is accepted. */
export async function simulate(h: Harness, paymentId: string, ...steps: string[]): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (const to of steps) {
    last = await expectJson(
      await h.call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, { body: { to } }),
      200,
    );
  }
  return last;
}
