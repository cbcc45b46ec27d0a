/**
 * The wallet SDK's tests: a real server over a real database, behind the real fault-injecting HTTP proxy of the
 * merchant SDK's tests, with wallet credentials of both modes; optionally serving the run's shared local chain.
 * Also the signers the tests pay with: a recorder that says whether a provider was ever asked anything, and real
 * ones (anvil's unlocked accounts, kit keypairs).
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { createPublicClient, http } from 'viem';
import { createApp, createRuntime, openDatabase, type Runtime } from '@paygate/server';
import {
  PaygateWallet,
  type Eip1193Provider,
  type PayableOption,
  type PaygateWalletOptions,
  type WalletRpcAction,
} from '@paygate/sdk-wallet';
import { createKey, createMerchant, createPartner } from '../../server/src/accounts/index.js';
import type { Chains } from '../../server/src/chains/index.js';
import { sharedChains } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { listen, type Listening } from '../helpers/http.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import { startProxy, type Proxy } from './helpers.js';

export interface WalletCredentials {
  merchantId: string;
  merchantTestKey: string;
  merchantLiveKey: string;
  /** Wallet keys (`wk_…`) and app ids (`app_…`) of each mode. */
  testKey: string;
  liveKey: string;
  testApp: string;
  liveApp: string;
}

export interface WalletHarness {
  runtime: Runtime;
  clock: TestClock;
  server: Listening;
  proxy: Proxy;
  credentials: WalletCredentials;
  /** The chains the server serves, when asked for. */
  chains: Chains | null;
  /** Every wait the SDK asked for between retries and polls, in ms; the harness's sleep returns at once. */
  sleeps: number[];
  /** A client through the proxy with the test wallet key, fast recorded retries and the harness clock. */
  wallet(options?: Partial<PaygateWalletOptions>): PaygateWallet;
  /** Creates a payment through the merchant API. */
  createPayment(options?: {
    live?: boolean;
    value?: string;
    unit?: string;
  }): Promise<{ paymentId: string; gatewayUrl: string }>;
  /** Moves a test payment with the merchant's simulate call. */
  simulate(paymentId: string, ...steps: string[]): Promise<void>;
  /** The proxy's log from `from` on, as `METHOD path → outcome` lines. */
  exchanges(from?: number): string[];
  close(): Promise<void>;
}

/** anvil account #1, where the local chain's merchant is paid. */
export const LOCAL_SETTLEMENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const LOCAL_CHAIN = 'eip155:31337';

export async function startWalletHarness(
  options: { config?: Record<string, string>; logger?: Logger; chains?: boolean } = {},
): Promise<WalletHarness> {
  const chains = options.chains ? await sharedChains() : null;
  // With a chain, the business clock starts at the chain's time, so that deadlines signed into authorizations mean
  // the same to both.
  const start = chains ? Number((await chains.local!.evm.clients.public.getBlock()).timestamp) * 1000 : undefined;
  const clock = testClock(start);
  // The clock stands still unless a test moves it, so no bucket would ever refill: limits are off unless asked for.
  const config = { PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000', ...options.config };
  const db = openDatabase('sqlite::memory:');
  const runtime = await createRuntime({
    config: testConfig(config),
    db,
    logger: options.logger ?? pino({ level: 'silent' }),
    now: clock.now,
    ...(chains ? { chains } : {}),
  });
  const server = await listen(createApp({ runtime, validateResponses: true }));
  const proxy = await startProxy(server.url);

  const partnerId = (await createPartner(runtime, { name: 'Wallet SDK partner' })).id;
  const merchant = await createMerchant(runtime, {
    partnerId,
    name: 'Northwind Coffee',
    feeConfig: null,
    settlementAddresses: chains ? { [LOCAL_CHAIN]: LOCAL_SETTLEMENT } : undefined,
  });
  const mint = async (kind: 'wallet' | 'app' | 'merchant', mode: 'test' | 'live') =>
    (await createKey(runtime, { kind, mode, label: `${kind} ${mode}`, ...(kind === 'merchant' ? { partnerId } : {}) }))
      .secret;
  const credentials: WalletCredentials = {
    merchantId: merchant.id,
    merchantTestKey: await mint('merchant', 'test'),
    merchantLiveKey: await mint('merchant', 'live'),
    testKey: await mint('wallet', 'test'),
    liveKey: await mint('wallet', 'live'),
    testApp: await mint('app', 'test'),
    liveApp: await mint('app', 'live'),
  };

  const merchantCall = async (path: string, body: unknown, live = false) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Api-Key': live ? credentials.merchantLiveKey : credentials.merchantTestKey,
        'Merchant-Id': credentials.merchantId,
      },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };

  const sleeps: number[] = [];
  return {
    runtime,
    clock,
    server,
    proxy,
    credentials,
    chains,
    sleeps,
    wallet: (o = {}) =>
      new PaygateWallet({
        baseUrl: proxy.url,
        apiKey: credentials.testKey,
        now: clock.now,
        ...o,
        retry: {
          retries: 2,
          baseDelayMs: 20,
          maxDelayMs: 100,
          sleep: async (ms: number, signal: AbortSignal) => {
            sleeps.push(ms);
            signal.throwIfAborted();
          },
          ...o.retry,
        },
      } as PaygateWalletOptions),
    async createPayment(o = {}) {
      const created = await merchantCall(
        '/v1/merchant/payment',
        { amount: { unit: o.unit ?? 'iso4217/USD', value: o.value ?? '1250' }, referenceId: 'order_1' },
        o.live,
      );
      return { paymentId: created.paymentId as string, gatewayUrl: created.gatewayUrl as string };
    },
    async simulate(paymentId, ...steps) {
      for (const to of steps) await merchantCall(`/v1/merchant/test/payment/${paymentId}/simulate`, { to });
    },
    exchanges: (from = 0) => proxy.log.slice(from).map((e) => `${e.method} ${e.path} → ${e.outcome}`),
    async close() {
      await proxy.close();
      await server.close();
      await runtime.close();
      await db.close();
    },
  };
}

export interface RecordingProvider extends Eip1193Provider {
  /** Every request the provider received, in order. */
  calls: { method: string; params?: unknown }[];
}

/** A provider that records each request and passes it to `inner` (by default: refuses, as a user would). */
export function recordingProvider(inner?: Eip1193Provider): RecordingProvider {
  const calls: RecordingProvider['calls'] = [];
  return {
    calls,
    async request(args) {
      calls.push(args);
      if (inner) return inner.request(args);
      throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
    },
  };
}

/** A real EIP-1193 provider: viem's JSON-RPC client of the local anvil, whose dev accounts are unlocked. */
export function anvilProvider(rpcUrl: string): Eip1193Provider {
  return createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
}

/** anvil's account #3 (of the public test mnemonic): used by no part of the server. */
export const ANVIL_BUYER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

/** An option built by a test, as the input `pay` takes; the server never saw it. */
export function optionOf(
  paymentId: string,
  actions: PayableOption['actions'],
  overrides: Partial<PayableOption> = {},
): PayableOption {
  return {
    paymentId,
    id: 'opt_built_by_the_test',
    account: `${LOCAL_CHAIN}:${ANVIL_BUYER}`,
    amount: {
      unit: `caip19/${LOCAL_CHAIN}/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3`,
      value: '12500000',
      display: { assetSymbol: 'TUSD', assetName: 'Paygate Test USD', decimals: 6 },
    },
    actions,
    etaS: 2,
    expiresAt: null,
    collectData: null,
    ...overrides,
  };
}

export const walletRpc = (data: WalletRpcAction) => ({ type: 'walletRpc' as const, data });

/** EIP-3009 typed data for `from` on `chainId`, as the gateway's eth_signTypedData_v4 action carries it. */
export function transferTypedData(from: string, chainId: number, value = '12500000'): string {
  return JSON.stringify({
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    domain: {
      name: 'Paygate Test USD',
      version: '1',
      chainId,
      verifyingContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    },
    message: {
      from,
      to: LOCAL_SETTLEMENT,
      value,
      validAfter: '0',
      validBefore: '1771409220',
      nonce: '0x69a6c0a69731f1b05fb0aa13531b7b2b7dfd64618fad65a0b3bda69c970ddd0c',
    },
  });
}

export const signTypedData = (from: string, chainId = 31337, value?: string) =>
  walletRpc({
    chain_id: `eip155:${chainId}`,
    method: 'eth_signTypedData_v4',
    params: [from, transferTypedData(from, chainId, value)],
  });
