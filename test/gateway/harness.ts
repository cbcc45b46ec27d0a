/** A real server over a real database for gateway tests: wallet credentials, payments made through the merchant API. */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { createApp, createRuntime, openDatabase, type Database, type Runtime } from '@paygate/server';
import { createKey } from '../../server/src/accounts/index.js';
import type { Chains } from '../../server/src/chains/index.js';
import type { CheckoutOptions } from '../../server/src/checkout/context.js';
import { testConfig } from '../helpers/config.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import { expectError, expectJson } from '../helpers/responses.js';

export interface WalletCredentials {
  /** Wallet API keys (`wk_…`) and app ids (`app_…`) of each mode. */
  testKey: string;
  liveKey: string;
  testApp: string;
  liveApp: string;
}

export interface GatewayCall {
  body?: unknown;
  /** The raw body, sent as is. */
  raw?: string;
  /** Added to (and overriding) the default `Api-Key` of a test wallet key; a null value removes a header. */
  headers?: Record<string, string | null>;
  signal?: AbortSignal;
}

export interface GatewayHarness {
  runtime: Runtime;
  clock: TestClock;
  server: Listening;
  account: MerchantAccount;
  wallet: WalletCredentials;
  /** A gateway request, authenticated with the test wallet key unless `headers` says otherwise. */
  call(method: string, path: string, options?: GatewayCall): Promise<Response>;
  /** Creates a payment through the merchant API and answers its id. */
  createPayment(options?: {
    live?: boolean;
    expiresInSeconds?: number;
    amount?: { unit: string; value: string };
  }): Promise<string>;
  /** Moves a test payment with the merchant's simulate call. */
  simulate(paymentId: string, ...steps: string[]): Promise<void>;
  close(): Promise<void>;
}

export interface GatewayHarnessOptions {
  config?: Record<string, string>;
  logger?: Logger;
  /** Chains to serve (the run's shared local chain, or a variant of it); none by default. */
  chains?: Chains;
  checkout?: CheckoutOptions;
  /** Where the business clock starts (ms); a chain harness starts it at the chain's time. */
  clockStart?: number;
  merchant?: { feeConfig?: unknown; settlementAddresses?: Record<string, string> };
  /** A database the caller owns (e.g. PostgreSQL from createTestDatabase); an in-memory SQLite one otherwise. */
  db?: Database;
}

export async function startGatewayHarness(options: GatewayHarnessOptions = {}): Promise<GatewayHarness> {
  const clock = testClock(options.clockStart);
  // The clock stands still unless a test moves it, so no bucket would ever refill: limits are off unless asked for.
  const config = { PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000', ...options.config };
  const db = options.db ?? openDatabase('sqlite::memory:');
  const runtime = await createRuntime({
    config: testConfig(config),
    db,
    logger: options.logger ?? pino({ level: 'silent' }),
    now: clock.now,
    chains: options.chains,
    checkout: options.checkout,
  });
  const server = await listen(createApp({ runtime, validateResponses: true }));
  const account = await createMerchantAccount(runtime, options.merchant);
  const mint = async (kind: 'wallet' | 'app', mode: 'test' | 'live') =>
    (await createKey(runtime, { kind, mode, label: `${kind} ${mode}` })).secret;
  const wallet: WalletCredentials = {
    testKey: await mint('wallet', 'test'),
    liveKey: await mint('wallet', 'live'),
    testApp: await mint('app', 'test'),
    liveApp: await mint('app', 'live'),
  };

  const send = (method: string, path: string, headers: Record<string, string | null>, o: GatewayCall) => {
    const all: Record<string, string | null> = {
      ...(o.body !== undefined || o.raw !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== null));
    return fetch(`${server.url}${path}`, {
      method,
      headers: sent,
      body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
      signal: o.signal,
    });
  };
  const merchant = (method: string, path: string, body: unknown, live = false) =>
    send(
      method,
      path,
      { 'Api-Key': live ? account.liveKey : account.testKey, 'Merchant-Id': account.merchantId },
      { body },
    );

  return {
    runtime,
    clock,
    server,
    account,
    wallet,
    call: (method, path, o = {}) => send(method, path, { 'Api-Key': wallet.testKey, ...o.headers }, o),
    async createPayment(o = {}) {
      const body = {
        amount: o.amount ?? { unit: 'iso4217/USD', value: '1250' },
        referenceId: 'order_1',
        ...(o.expiresInSeconds ? { expiresAt: Math.floor(clock.now() / 1000) + o.expiresInSeconds } : {}),
      };
      const created = await expectJson<{ paymentId: string }>(
        await merchant('POST', '/v1/merchant/payment', body, o.live),
        201,
      );
      return created.paymentId;
    },
    async simulate(paymentId, ...steps) {
      for (const to of steps) {
        await expectJson(await merchant('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, { to }), 200);
      }
    },
    async close() {
      await server.close();
      await runtime.close();
      if (!options.db) await db.close();
    },
  };
}

export { expectError, expectJson };

export const unknownPayment = 'pay_AAAAAAAAAAAAAAAAAAAAAAAA';

/** The gateway's operations, with a body that passes the schema, for checks that apply to all of them. */
export interface Operation {
  name: 'getPayment' | 'getPaymentStatus' | 'cancelPayment' | 'getPaymentOptions' | 'fetchAction' | 'confirmPayment';
  method: 'GET' | 'POST';
  path: (paymentId: string) => string;
  body?: unknown;
}

const someOption = 'opt_e30.AAAA';

export const operations: Operation[] = [
  { name: 'getPayment', method: 'GET', path: (id) => `/v1/gateway/payment/${id}` },
  { name: 'getPaymentStatus', method: 'GET', path: (id) => `/v1/gateway/payment/${id}/status` },
  { name: 'cancelPayment', method: 'POST', path: (id) => `/v1/gateway/payment/${id}/cancel` },
  {
    name: 'getPaymentOptions',
    method: 'POST',
    path: (id) => `/v1/gateway/payment/${id}/options`,
    body: { accounts: ['eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8'] },
  },
  {
    name: 'fetchAction',
    method: 'POST',
    path: (id) => `/v1/gateway/payment/${id}/fetch`,
    body: { optionId: someOption, data: 'bld_x' },
  },
  {
    name: 'confirmPayment',
    method: 'POST',
    path: (id) => `/v1/gateway/payment/${id}/confirm`,
    body: { optionId: someOption, results: [`0x${'ab'.repeat(32)}`] },
  },
];

export interface StatusAnswer {
  status: string;
  isFinal: boolean;
  pollInMs: number | null;
  info: null | { txId: string; optionAmount: Record<string, unknown> };
}
