/**
 * The chaos run's HTTP client: each call goes to one of the API processes that is up, chosen by the run's PRNG, and
 * is retried on another when the process was killed under it (a connection error or a gateway error status). Calls
 * that create carry an Idempotency-Key, so a retry after a lost answer creates nothing twice.
 */
import type { ChaosProcess } from './processes.js';
import type { Prng } from './prng.js';

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Answer {
  status: number;
  json: unknown;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function apiClient(processes: ChaosProcess[], rng: Prng, stopped: () => boolean) {
  return async function call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    let last: unknown = null;
    for (let attempt = 0; attempt < 40 && !stopped(); attempt++) {
      const up = processes.filter((p) => p.kind === 'api' && p.url !== null);
      if (up.length === 0) {
        await pause(500);
        continue;
      }
      const target = rng.pick(up);
      try {
        const res = await fetch(`${target.url}${path}`, {
          method,
          headers: {
            ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
            ...options.headers,
          },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        // A proxy-style failure, or the process died mid-answer: the same call again, elsewhere.
        if (res.status === 502 || res.status === 503 || res.status === 504) {
          last = `${res.status} ${text.slice(0, 200)}`;
          await pause(250);
          continue;
        }
        return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
      } catch (err) {
        last = err;
        await pause(250);
      }
    }
    throw new Error(`${method} ${path} found no API process that answered: ${String(last)}`);
  };
}

export type ApiCall = ReturnType<typeof apiClient>;
