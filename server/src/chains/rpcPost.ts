/**
 * One JSON-RPC call to one endpoint, and what can go wrong with it, by kind: the pool (rpcPool.ts) fails over on
 * any of these, and the metrics count them apart. A JSON-RPC error answer is not a failure of the endpoint: it is
 * returned as the node sent it (a revert, a nonce too low), and the namespace's client raises it.
 */
import type { RpcEndpointConfig } from './rpcEndpoints.js';

export type RpcFailureKind = 'timeout' | 'connection' | 'rateLimited' | 'http' | 'malformed' | 'wrongId' | 'rpcError';

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export class RpcEndpointError extends Error {
  constructor(
    readonly kind: RpcFailureKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RpcEndpointError';
  }
}

/**
 * Whether an error (or one of its causes: viem and kit wrap what the transport threw) is an endpoint failure rather
 * than the node's answer, such as a revert: a read that failed this way says nothing about what the chain holds.
 */
export function isEndpointFailure(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth += 1) {
    if (e instanceof RpcEndpointError) return true;
  }
  return false;
}

/** `Retry-After` as seconds or an HTTP date; providers send either. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function postJsonRpc(
  endpoint: RpcEndpointConfig,
  payload: { jsonrpc: '2.0'; id: number; method: string; params: unknown },
): Promise<JsonRpcResponse> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new RpcEndpointError('timeout', `no answer within ${endpoint.timeoutMs} ms`);
    }
    // The URL may hold a key: the message names the kind, never the address.
    throw new RpcEndpointError('connection', 'the connection failed');
  }
  if (res.status === 429) {
    throw new RpcEndpointError('rateLimited', 'rate limited (429)', retryAfterMs(res.headers.get('retry-after')));
  }
  if (!res.ok) throw new RpcEndpointError('http', `HTTP ${res.status}`, retryAfterMs(res.headers.get('retry-after')));
  let body: JsonRpcResponse;
  try {
    body = JSON.parse(text) as JsonRpcResponse;
  } catch {
    throw new RpcEndpointError('malformed', 'the answer is not JSON');
  }
  if (body === null || typeof body !== 'object' || (!('result' in body) && !('error' in body))) {
    throw new RpcEndpointError('malformed', 'the answer is not a JSON-RPC response');
  }
  if (body.id !== payload.id) throw new RpcEndpointError('wrongId', 'the answer is for another request');
  return body;
}
