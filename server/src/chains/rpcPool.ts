/**
 * One chain's RPC endpoints behind one request function: reads go to a healthy endpoint and fail over, sends go to
 * every endpoint that may take them, and a lagging node is never asked. Health per endpoint is its consecutive
 * errors, its latency, its head and a circuit breaker (closed, open until a time, then one half-open probe).
 *
 * viem's `fallback` ranks transports by latency but cannot see an answer's HTTP status, `Retry-After` or id, keeps
 * no breaker and knows nothing of heads; kit has no fallback at all. So both namespaces post JSON-RPC through this
 * pool (decisions.md §27.2) and keep their own clients above it.
 */
import { postJsonRpc, RpcEndpointError, type JsonRpcResponse, type RpcFailureKind } from './rpcPost.js';
import type { EndpointHealthReading, RpcCallRecord } from '../observability/observer.js';
import type { RpcEndpointConfig } from './rpcEndpoints.js';

export type { RpcCallRecord };

export type BreakerState = EndpointHealthReading['breaker'];

export type EndpointHealth = EndpointHealthReading;

export interface RpcPoolOptions {
  chain: string;
  endpoints: RpcEndpointConfig[];
  /** Send-only endpoints: when given, sends go to them alone and reads never do (decisions.md §27.13). */
  sendEndpoints?: RpcEndpointConfig[];
  /** The method that answers the head, and how to read its answer. */
  headMethod: string;
  /** Methods whose answer is broadcast to every endpoint: the same signed bytes, never signed again. */
  sendMethods: readonly string[];
  /** Whether an answer says "not found"; such an answer is confirmed with the other in-sync endpoints. */
  notFound: (method: string, result: unknown, params: unknown) => boolean;
  maxHeadLag: bigint;
  now?: () => number;
  /** Consecutive errors that open an endpoint's breaker. */
  breakerErrors?: number;
  /** How long a breaker first stays open; it doubles each time a half-open probe fails, up to 60 s. */
  breakerOpenMs?: number;
  /** How long to wait before a second pass over the endpoints when every one failed (also caps Retry-After). */
  backoffMs?: number;
  /** How old the heads may be before a read asks every endpoint again (only with more than one endpoint). */
  headRefreshMs?: number;
  onCall?: (record: RpcCallRecord) => void;
}

interface Endpoint {
  config: RpcEndpointConfig;
  label: string;
  errors: number;
  latencyMs: number | null;
  head: bigint | null;
  openUntil: number;
  openMs: number;
  probing: boolean;
  limitedUntil: number;
}

export class RpcPool {
  private readonly endpoints: Endpoint[];
  private readonly senders: Endpoint[];
  private readonly now: () => number;
  private headsAt = Number.NEGATIVE_INFINITY;
  /** Set when one endpoint could not find what another found: the heads known may no longer be true. */
  private headsDoubted = false;
  private refreshing: Promise<void> | null = null;
  /** JSON-RPC ids of this pool's requests (an endpoint that answers with another id is faulty, rpcPost.ts). */
  private nextId = 1;

  constructor(private readonly options: RpcPoolOptions) {
    this.now = options.now ?? Date.now;
    const endpoint = (config: RpcEndpointConfig, label: string): Endpoint => ({
      config,
      label,
      errors: 0,
      latencyMs: null,
      head: null,
      openUntil: 0,
      openMs: options.breakerOpenMs ?? 5_000,
      probing: false,
      limitedUntil: 0,
    });
    this.endpoints = options.endpoints.map((config, i) => endpoint(config, `endpoint${i}`));
    this.senders = (options.sendEndpoints ?? []).map((config, i) => endpoint(config, `send${i}`));
  }

  /** One JSON-RPC call, answered by the pool: the response as the node sent it (its `error` included). */
  async request(method: string, params: unknown): Promise<JsonRpcResponse> {
    if (this.options.sendMethods.includes(method)) return this.broadcast(method, params);
    // Without a fresh head of every endpoint, a lagging one would look in sync: heads first, then the read.
    const stale = this.now() - this.headsAt > (this.options.headRefreshMs ?? 2_000);
    if (this.endpoints.length > 1 && (stale || this.headsDoubted)) {
      this.refreshing ??= this.refreshHeads().finally(() => (this.refreshing = null));
      await this.refreshing;
    }
    let last: unknown = new RpcEndpointError('connection', `${this.options.chain}: no RPC endpoint is available`);
    for (let pass = 0; pass < 2; pass += 1) {
      if (pass > 0) await delay(this.pause());
      for (const endpoint of this.readable()) {
        try {
          const response = await this.call(endpoint, method, params);
          if (this.options.notFound(method, response.result, params))
            return await this.confirmNotFound(endpoint, method, params, response);
          return response;
        } catch (err) {
          last = err;
        }
      }
    }
    throw last;
  }

  /** Asks every endpoint not known broken for its head (a timer calls this, so lag is known before money reads). */
  async refreshHeads(): Promise<void> {
    this.headsAt = this.now();
    this.headsDoubted = false;
    await Promise.all(
      this.endpoints
        .filter((e) => this.breakerOf(e) !== 'open')
        .map((e) => this.call(e, this.options.headMethod, []).catch(() => undefined)),
    );
  }

  health(): EndpointHealth[] {
    const best = this.bestHead();
    return this.endpoints.map((e) => ({
      label: e.label,
      breaker: this.breakerOf(e),
      consecutiveErrors: e.errors,
      latencyMs: e.latencyMs,
      head: e.head,
      lag: e.head === null || best === null ? null : best - e.head,
      available: this.isReadable(e, best),
    }));
  }

  /** Whether any endpoint may be asked now: false is a chain that /readyz reports degraded. */
  healthy(): boolean {
    const best = this.bestHead();
    return this.endpoints.some((e) => this.isReadable(e, best));
  }

  /**
   * Endpoints that may be asked, best first. One at the best known head comes before one that trails it, whatever
   * their weights: a node stuck inside the lag bound would otherwise answer every head read, and a preferred node
   * that never moves holds every payment back for as long as it stays stuck (decisions.md §27.12).
   */
  private readable(): Endpoint[] {
    const best = this.bestHead();
    const behind = (e: Endpoint) => (e.head !== null && best !== null && e.head < best ? 1 : 0);
    return this.endpoints
      .filter((e) => this.isReadable(e, best))
      .sort(
        (a, b) =>
          a.errors - b.errors ||
          behind(a) - behind(b) ||
          b.config.weight - a.config.weight ||
          (a.latencyMs ?? 0) / Math.max(a.config.weight, 0.01) - (b.latencyMs ?? 0) / Math.max(b.config.weight, 0.01),
      );
  }

  private isReadable(e: Endpoint, best: bigint | null): boolean {
    if (this.breakerOf(e) === 'open' || (this.breakerOf(e) === 'halfOpen' && e.probing)) return false;
    if (e.limitedUntil > this.now()) return false;
    return !(e.head !== null && best !== null && best - e.head > this.options.maxHeadLag);
  }

  private breakerOf(e: Endpoint): BreakerState {
    if (e.openUntil === 0) return 'closed';
    return e.openUntil > this.now() ? 'open' : 'halfOpen';
  }

  private bestHead(): bigint | null {
    return this.endpoints.reduce<bigint | null>(
      (best, e) => (e.head !== null && (best === null || e.head > best) ? e.head : best),
      null,
    );
  }

  private pause(): number {
    const cap = this.options.backoffMs ?? 250;
    const limited = Math.min(...this.endpoints.map((e) => e.limitedUntil)) - this.now();
    return Math.max(0, Math.min(cap, limited > 0 ? limited : cap));
  }

  private async call(endpoint: Endpoint, method: string, params: unknown): Promise<JsonRpcResponse> {
    const halfOpen = this.breakerOf(endpoint) === 'halfOpen';
    if (halfOpen) endpoint.probing = true;
    const started = performance.now();
    const record = (outcome: RpcCallRecord['outcome']) =>
      this.options.onCall?.({
        chain: this.options.chain,
        endpoint: endpoint.label,
        method,
        outcome,
        seconds: (performance.now() - started) / 1000,
      });
    try {
      const response = await postJsonRpc(endpoint.config, { jsonrpc: '2.0', id: this.nextId++, method, params });
      endpoint.latencyMs = Math.round(performance.now() - started);
      endpoint.errors = 0;
      endpoint.openUntil = 0;
      endpoint.openMs = this.options.breakerOpenMs ?? 5_000;
      if (method === this.options.headMethod && response.result !== undefined)
        endpoint.head = BigInt(response.result as string);
      record(response.error ? 'rpcError' : 'ok');
      return response;
    } catch (err) {
      const kind: RpcFailureKind = (err as { kind?: RpcFailureKind }).kind ?? 'connection';
      record(kind);
      endpoint.errors += 1;
      const retryAfterMs = (err as { retryAfterMs?: number }).retryAfterMs;
      if (retryAfterMs !== undefined) endpoint.limitedUntil = this.now() + retryAfterMs;
      if (halfOpen) {
        endpoint.openMs = Math.min(endpoint.openMs * 2, 60_000);
        endpoint.openUntil = this.now() + endpoint.openMs;
      } else if (endpoint.errors >= (this.options.breakerErrors ?? 3)) {
        endpoint.openUntil = this.now() + endpoint.openMs;
      }
      throw err;
    } finally {
      endpoint.probing = false;
    }
  }

  /**
   * A node that has not seen a transaction answers null, as a node after a reorganisation would. The pool answers
   * "not found" only when every other in-sync endpoint agrees (or cannot be asked); else the first that found it.
   */
  private async confirmNotFound(
    first: Endpoint,
    method: string,
    params: unknown,
    response: JsonRpcResponse,
  ): Promise<JsonRpcResponse> {
    for (const endpoint of this.readable().filter((e) => e !== first)) {
      const other = await this.call(endpoint, method, params).catch(() => null);
      if (other && !other.error && !this.options.notFound(method, other.result, params)) {
        // The first endpoint may have fallen behind since the heads were read, and would then answer the next
        // head-relative read (a `finalized` block) from its old head: the next read asks every head first.
        this.headsDoubted = true;
        return other;
      }
    }
    return response;
  }

  /**
   * Every endpoint that is not broken (the send-only ones when configured) gets the same bytes; the first acceptance
   * answers, else the first refusal.
   */
  private async broadcast(method: string, params: unknown): Promise<JsonRpcResponse> {
    const all = this.senders.length ? this.senders : this.endpoints;
    const targets = all.filter((e) => this.breakerOf(e) !== 'open');
    const answers = await Promise.allSettled((targets.length ? targets : all).map((e) => this.call(e, method, params)));
    const accepted = answers.find((a) => a.status === 'fulfilled' && !a.value.error);
    if (accepted?.status === 'fulfilled') return accepted.value;
    const refused = answers.find((a) => a.status === 'fulfilled');
    if (refused?.status === 'fulfilled') return refused.value;
    throw (answers[0] as PromiseRejectedResult).reason;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
