/**
 * A real server behind a real HTTP proxy that can fail requests on purpose, for the merchant SDK's tests: the SDK
 * talks to the proxy with real fetch, the proxy forwards to the server, and a test queues faults for the next
 * requests it wants to see fail.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type Runtime } from '@paygate/server';
import { PaygateMerchant, type MerchantClientOptions } from '@paygate/sdk-merchant';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

/**
 * `fail-after-forward`: the server handles the request, the client gets a 502 (a proxy losing the answer).
 * `drop-after-forward`: the server handles it, the client's connection is cut (a network failure after sending).
 * `drop`: the connection is cut before anything is forwarded (the server never sees the request).
 * `respond`: the proxy answers by itself, as a server of another version might.
 */
export type Fault =
  | { kind: 'fail-after-forward' }
  | { kind: 'drop-after-forward' }
  | { kind: 'drop' }
  | { kind: 'respond'; status: number; body: unknown; headers?: Record<string, string> };

export interface Exchange {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the client got: a status, or `dropped`. */
  outcome: number | 'dropped';
  /** The headers and the body of the answer the client got (empty when dropped). */
  answerHeaders: Record<string, string>;
  answer: string;
}

export interface Proxy {
  url: string;
  /** Every request the proxy received, in order. */
  log: Exchange[];
  /** Queues a fault for the next request whose method and path match (the path without its query). */
  failNext(match: { method: string; path: string | RegExp }, fault: Fault): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade']);

export async function startProxy(target: string): Promise<Proxy> {
  const faults: { method: string; path: string | RegExp; fault: Fault }[] = [];
  const log: Exchange[] = [];
  const takeFault = (method: string, path: string): Fault | undefined => {
    const i = faults.findIndex(
      (f) => f.method === method && (typeof f.path === 'string' ? f.path === path : f.path.test(path)),
    );
    return i === -1 ? undefined : faults.splice(i, 1)[0]!.fault;
  };

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const exchange: Exchange = {
      method,
      path: req.url ?? '',
      headers: req.headers,
      body,
      outcome: 'dropped',
      answerHeaders: {},
      answer: '',
    };
    log.push(exchange);
    const fault = takeFault(method, path);
    if (fault?.kind === 'drop') return void req.socket.destroy();
    if (fault?.kind === 'respond') {
      exchange.outcome = fault.status;
      exchange.answerHeaders = { 'content-type': 'application/json', ...fault.headers };
      exchange.answer = JSON.stringify(fault.body);
      res.writeHead(fault.status, exchange.answerHeaders);
      return void res.end(exchange.answer);
    }
    const headers = Object.entries(req.headers).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && !HOP_BY_HOP.has(e[0]),
    );
    let answer: Response;
    let answerBody: Buffer;
    try {
      answer = await fetch(`${target}${req.url ?? '/'}`, {
        method,
        headers,
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      });
      answerBody = Buffer.from(await answer.arrayBuffer());
    } catch {
      exchange.outcome = 502;
      return void res.writeHead(502).end();
    }
    if (fault?.kind === 'drop-after-forward') return void req.socket.destroy();
    if (fault?.kind === 'fail-after-forward') {
      exchange.outcome = 502;
      res.writeHead(502, { 'Content-Type': 'text/html' });
      return void res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
    });
    Object.assign(exchange, { outcome: answer.status, answerHeaders: out, answer: answerBody.toString('utf8') });
    res.writeHead(answer.status, out);
    res.end(answerBody);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    failNext: (match, fault) => faults.push({ ...match, fault }),
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export interface SdkHarness {
  runtime: Runtime;
  clock: TestClock;
  server: Listening;
  proxy: Proxy;
  account: MerchantAccount;
  /** A client of `account` (its test key) through the proxy; options override. */
  merchant(options?: Partial<MerchantClientOptions>): PaygateMerchant;
  /** The proxy's log from `from` on, as `METHOD path → outcome` lines, for readable assertions. */
  exchanges(from?: number): string[];
  close(): Promise<void>;
}

/** Fast retries, so tests that make the SDK retry do not wait for production backoff. */
export const FAST_RETRY = { retries: 2, baseDelayMs: 20, maxDelayMs: 100 };

export async function startSdkHarness(
  options: { config?: Record<string, string>; clock?: TestClock } = {},
): Promise<SdkHarness> {
  const clock = options.clock ?? testClock();
  // A clock that stands still never refills a bucket: rate limits are off unless a test asks for them.
  const config = { PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000', ...options.config };
  const runtime = await testRuntime({ clock, config });
  const server = await listen(createApp({ runtime, validateResponses: true }));
  const proxy = await startProxy(server.url);
  const account = await createMerchantAccount(runtime);
  return {
    runtime,
    clock,
    server,
    proxy,
    account,
    merchant: (o = {}) =>
      new PaygateMerchant({
        baseUrl: proxy.url,
        apiKey: account.testKey,
        merchantId: account.merchantId,
        retry: FAST_RETRY,
        ...o,
      }),
    exchanges: (from = 0) => proxy.log.slice(from).map((e) => `${e.method} ${e.path} → ${e.outcome}`),
    async close() {
      await proxy.close();
      await server.close();
      await runtime.close();
    },
  };
}

export const usd = (value = '1250', referenceId = 'order_1') => ({
  amount: { unit: 'iso4217/USD', value },
  referenceId,
});
