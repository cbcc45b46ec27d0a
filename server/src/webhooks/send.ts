/**
 * One delivery attempt over HTTP. Connects to the address checked by the URL policy (never re-resolving), does not
 * follow redirects, gives up after the timeout, and keeps the first 4 KB of the answer for the attempt log.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setMaxListeners } from 'node:events';
import type { LookupFunction } from 'node:net';
import type { CheckedUrl } from './ssrf.js';

/**
 * Connections are reused per checked address: a socket in the pool was opened to an address that passed the URL
 * policy, so reuse cannot reach anything the policy refused. Idle sockets close after a second, well before a
 * typical server's keep-alive timeout, so a reused socket is rarely one the receiver is closing. One pool per runtime
 * (runtime.ts builds it, through the webhook deps).
 */
export class AgentPool {
  private readonly agents = new Map<string, HttpAgent>();

  agentFor(target: CheckedUrl): HttpAgent {
    const key = `${target.url.protocol}//${target.url.host}@${target.address}`;
    let agent = this.agents.get(key);
    if (!agent) {
      if (this.agents.size >= 500) {
        const [oldestKey, oldest] = this.agents.entries().next().value!;
        oldest.destroy();
        this.agents.delete(oldestKey);
      }
      const options = { keepAlive: true, maxSockets: 16, timeout: 1000 };
      agent = target.url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }
}

export const RESPONSE_KEEP_BYTES = 4096;

export interface AttemptResult {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  delivered: boolean;
}

export interface SendOptions {
  target: CheckedUrl;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /**
   * Aborted at shutdown, or when the attempt's lease is lost: the attempt ends as a failure (recorded and retried
   * rather than lost, if its lease is still ours). An `Interrupted` reason names the cause in the attempt's error.
   */
  signal?: AbortSignal;
  /** Where connections are reused (the runtime's); without it each send opens a connection of its own. */
  agents?: AgentPool;
}

/** Why a send was interrupted, as its abort reason: the message becomes the attempt's error. */
export class Interrupted extends Error {}

/**
 * Every attempt in flight listens to the shutdown signal, and a worker runs more than ten at once (its concurrency),
 * which is not the leak Node warns about past ten listeners. Setting it again is a property write, so nothing
 * remembers which signals were set.
 */
export function listenUnbounded(signal: AbortSignal): void {
  setMaxListeners(0, signal);
}

export function sendWebhook(options: SendOptions): Promise<AttemptResult> {
  const { target, headers, body, timeoutMs, signal, agents } = options;
  const started = performance.now();
  const pinned: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }] as never);
    else callback(null, target.address, target.family);
  };
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, 'latencyMs' | 'delivered'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', interrupt);
      const delivered = result.status !== null && result.status >= 200 && result.status < 300 && result.error === null;
      resolve({ ...result, latencyMs: Math.round(performance.now() - started), delivered });
    };
    const req = request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        agent: agents ? agents.agentFor(target) : false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_KEEP_BYTES) {
            chunks.push(chunk.subarray(0, RESPONSE_KEEP_BYTES - kept));
            kept += Math.min(chunk.length, RESPONSE_KEEP_BYTES - kept);
          }
        });
        res.on('end', () => {
          const status = res.statusCode ?? null;
          const redirect = status !== null && status >= 300 && status < 400;
          finish({
            status,
            error: redirect ? `redirect to ${res.headers.location ?? '(no location)'} not followed` : null,
            responseBody: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (err) => finish({ status: res.statusCode ?? null, error: describe(err), responseBody: null }));
      },
    );
    const timer = setTimeout(() => {
      finish({ status: null, error: `timed out after ${timeoutMs} ms`, responseBody: null });
      req.destroy();
    }, timeoutMs);
    const interrupt = () => {
      const reason: unknown = signal?.reason;
      const error = reason instanceof Interrupted ? reason.message : 'interrupted: the sender shut down';
      finish({ status: null, error, responseBody: null });
      req.destroy();
    };
    if (signal) listenUnbounded(signal);
    signal?.addEventListener('abort', interrupt, { once: true });
    req.on('error', (err) => finish({ status: null, error: describe(err), responseBody: null }));
    if (signal?.aborted) interrupt();
    else req.end(body);
  });
}

function describe(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'ECONNRESET':
      return 'connection reset';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      return err.code ? `${err.code}: ${err.message}` : err.message;
  }
}
