/**
 * A fault-injecting JSON-RPC proxy: a real HTTP server in front of one of the run's chains (anvil or the LiteSVM
 * RPC) that passes calls through unless a scripted fault matches the call's method. It misbehaves the way RPC
 * providers do (slow, silent, reset, rate-limited, 5xx, garbage, wrong id, a lagging node, a node that has not seen a
 * transaction, a load balancer that accepts a send and drops it), so the gateway is tested against real chains and
 * real sockets, never against canned answers of a chain's state.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Decoder } from '@solana/kit';
import { keccak256, type Hex } from 'viem';

export type Fault =
  /** Answers after `ms`. */
  | { kind: 'latency'; ms: number }
  /** Never answers; the client's own timeout decides. */
  | { kind: 'timeout' }
  /** Destroys the socket without an answer. */
  | { kind: 'reset' }
  /** 429 with `Retry-After` (seconds). */
  | { kind: 'rateLimit'; retryAfterS: number }
  /** An HTTP 5xx with a text body. */
  | { kind: 'serverError'; status?: number }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** The real answer, under another id. */
  | { kind: 'wrongId' }
  /** A node stuck at `head`: reads of the head answer it, and what is newer is unknown to it. */
  | { kind: 'staleHead'; head: bigint }
  /** The transaction (or signature) exists, but this node answers null for it; `ids` narrows which ones. */
  | { kind: 'notFound'; ids?: string[] }
  /** A send accepted with its hash (or signature) and never forwarded. */
  | { kind: 'dropSend' };

export interface FaultRule {
  /** A JSON-RPC method, or `*` for every call. */
  method: string;
  fault: Fault;
  /** How many calls it hits before it retires itself; unlimited when absent. */
  times?: number;
}

export interface ProxiedCall {
  method: string;
  params: unknown;
  /** The fault applied, if any. */
  fault: Fault['kind'] | null;
}

export interface FaultProxy {
  url: string;
  /** Every call received, in order. */
  calls: ProxiedCall[];
  /** Adds a rule; the first matching rule with calls left wins. */
  inject(method: string, fault: Fault, times?: number): void;
  /** Removes every rule: the endpoint behaves again. */
  heal(): void;
  /** Sends the proxy swallowed (`dropSend`), as the raw signed bytes. */
  dropped: string[];
  close(): Promise<void>;
}

interface RpcCall {
  jsonrpc: '2.0';
  id: unknown;
  method: string;
  params?: unknown[];
}

const HEAD_METHODS = new Set(['eth_blockNumber', 'getSlot', 'getBlockHeight']);
const TAGS = new Set(['latest', 'safe', 'finalized', 'pending']);

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const rules: FaultRule[] = [];
  const held = new Set<ServerResponse>();
  const proxy = { calls: [], dropped: [] } as unknown as FaultProxy;

  const take = (method: string): Fault | null => {
    const rule = rules.find((r) => (r.method === method || r.method === '*') && (r.times ?? 1) > 0);
    if (!rule) return null;
    if (rule.times !== undefined) rule.times -= 1;
    return rule.fault;
  };

  const forward = async (call: RpcCall): Promise<{ id: unknown; result?: unknown; error?: unknown }> => {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    return (await res.json()) as { id: unknown; result?: unknown };
  };

  const answer = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
  };

  const handle = async (call: RpcCall, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const fault = take(call.method);
    proxy.calls.push({ method: call.method, params: call.params, fault: fault?.kind ?? null });
    const ok = async (c: RpcCall) => answer(res, 200, JSON.stringify(await forward(c)));
    switch (fault?.kind) {
      case undefined:
        return ok(call);
      case 'latency':
        // A timer, not an awaited sleep: the answer is late, the proxy is not blocked.
        setTimeout(() => void ok(call).catch(() => res.destroy()), fault.ms);
        return;
      case 'timeout':
        held.add(res);
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'rateLimit':
        return answer(res, 429, '{"error":"rate limited"}', { 'retry-after': String(fault.retryAfterS) });
      case 'serverError':
        return answer(res, fault.status ?? 502, 'upstream unavailable', { 'content-type': 'text/plain' });
      case 'malformed':
        return answer(res, 200, '{"jsonrpc":"2.0","id":');
      case 'wrongId': {
        const real = await forward(call);
        return answer(res, 200, JSON.stringify({ ...real, id: `${String(call.id)}-other` }));
      }
      case 'staleHead':
        return answer(res, 200, JSON.stringify(await staleAnswer(call, fault.head, forward)));
      case 'notFound': {
        const id = String((call.params ?? [])[0] ?? '');
        if (fault.ids && !fault.ids.some((x) => id.toLowerCase().includes(x.toLowerCase()))) return ok(call);
        return answer(res, 200, JSON.stringify(await notFoundAnswer(call, forward)));
      }
      case 'dropSend': {
        const raw = String((call.params ?? [])[0] ?? '');
        proxy.dropped.push(raw);
        const result = call.method === 'sendTransaction' ? solanaSignature(raw) : keccak256(raw as Hex);
        return answer(res, 200, JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
      }
    }
  };

  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      let call: RpcCall | RpcCall[];
      try {
        call = JSON.parse(body) as RpcCall | RpcCall[];
      } catch {
        return answer(res, 400, '{"error":"not JSON"}');
      }
      // Batches pass through whole: the gateway's clients send one call per request.
      const done = Array.isArray(call)
        ? fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) =>
            answer(res, r.status, await r.text()),
          )
        : handle(call, req, res);
      done.catch(() => {
        if (!res.headersSent) answer(res, 502, 'upstream failed', { 'content-type': 'text/plain' });
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.inject = (method, fault, times) => rules.unshift({ method, fault, times });
  proxy.heal = () => {
    rules.length = 0;
    for (const res of held) res.destroy();
    held.clear();
  };
  proxy.close = () =>
    new Promise((resolve) => {
      proxy.heal();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

type Forward = (call: RpcCall) => Promise<{ id: unknown; result?: unknown; error?: unknown }>;

/** What a node stuck at `head` would answer: the head itself, or null for what it has not seen yet. */
async function staleAnswer(call: RpcCall, head: bigint, forward: Forward): Promise<unknown> {
  const reply = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result });
  const params = call.params ?? [];
  if (HEAD_METHODS.has(call.method)) {
    return reply(call.method === 'eth_blockNumber' ? `0x${head.toString(16)}` : Number(head));
  }
  if (call.method === 'eth_getBlockByNumber' && TAGS.has(String(params[0]))) {
    return forward({ ...call, params: [`0x${head.toString(16)}`, ...params.slice(1)] });
  }
  const real = await forward(call);
  const result = real.result as Record<string, unknown> | null | undefined;
  if (call.method === 'eth_getTransactionReceipt' || call.method === 'eth_getTransactionByHash') {
    const at = result?.blockNumber;
    if (typeof at === 'string' && BigInt(at) > head) return reply(null);
  }
  if (call.method === 'eth_getBlockByNumber' && typeof params[0] === 'string' && BigInt(params[0]) > head) {
    return reply(null);
  }
  if (call.method === 'getSignatureStatuses' && result && Array.isArray(result.value)) {
    const value = (result.value as ({ slot: number } | null)[]).map((s) => (s && BigInt(s.slot) > head ? null : s));
    return reply({ ...result, context: { slot: Number(head) }, value });
  }
  if (call.method === 'getTransaction' && result && typeof result.slot === 'number' && BigInt(result.slot) > head) {
    return reply(null);
  }
  return real;
}

/** A node that has not seen the transaction: null where the real one answers it. */
async function notFoundAnswer(call: RpcCall, forward: Forward): Promise<unknown> {
  if (call.method === 'getSignatureStatuses') {
    const real = await forward(call);
    const result = real.result as { context: unknown; value: unknown[] } | undefined;
    if (!result) return real;
    return { ...real, result: { ...result, value: result.value.map(() => null) } };
  }
  return { jsonrpc: '2.0', id: call.id, result: null };
}

/** A wire transaction's first signature (after the one-byte signature count), base58: its id. */
function solanaSignature(wireBase64: string): string {
  const bytes = Buffer.from(wireBase64, 'base64');
  return getBase58Decoder().decode(bytes.subarray(1, 65));
}
