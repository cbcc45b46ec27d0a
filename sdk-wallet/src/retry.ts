/** The fetch the SDK calls: the platform's, or one injected by the caller (tests, proxies, instrumentation). */
export type FetchLike = (request: Request) => Promise<Response>;

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. Default 2. */
  retries?: number;
  /** The backoff's first ceiling; each retry doubles it. Default 500. */
  baseDelayMs?: number;
  /** The backoff's largest ceiling. Default 5000. */
  maxDelayMs?: number;
  /** The jitter's source, a number in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** How the SDK waits between attempts (and between status polls). Default: a timer that the signal cancels. */
  sleep?: Sleep;
}

export interface RetrySettings {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random: () => number;
  sleep: Sleep;
}

export const DEFAULT_RETRY: Readonly<Pick<RetrySettings, 'retries' | 'baseDelayMs' | 'maxDelayMs'>> = Object.freeze({
  retries: 2,
  baseDelayMs: 500,
  maxDelayMs: 5000,
});

/**
 * A `Retry-After` longer than this is not waited for: the error reaches the caller, who can decide, rather than a
 * wallet screen hanging for minutes.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

export function retrySettings(options: RetryOptions | undefined): RetrySettings {
  const numbers = {
    retries: options?.retries ?? DEFAULT_RETRY.retries,
    baseDelayMs: options?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: options?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
  for (const [name, value] of Object.entries(numbers)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`retry.${name} must be a number >= 0`);
    }
  }
  return {
    ...numbers,
    retries: Math.floor(numbers.retries),
    random: options?.random ?? Math.random,
    sleep: options?.sleep ?? sleep,
  };
}

/**
 * Wraps `fetchImpl` with retries of 429 (honouring `Retry-After`), 5xx except 501 (which no retry fixes) and network
 * failures (fetch's `TypeError`), with full-jitter exponential backoff. Never retries any other 4xx.
 *
 * Every gateway operation may be repeated safely (the contract: reads and options change nothing, cancel of a
 * cancelled payment answers it again, confirm with the same results answers the current status), so a 5xx or a
 * dropped connection, which can follow a request the server did apply, is retried for all of them.
 */
export function retryingFetch(fetchImpl: FetchLike, settings: RetrySettings): FetchLike {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= settings.retries;
      let response: Response;
      try {
        // Each attempt sends a copy, so the body is still there for the next one.
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        // An abort rejects with the signal's reason, whatever its type: never retried.
        if (last || request.signal.aborted || !(error instanceof TypeError)) throw error;
        await settings.sleep(backoff(settings, attempt), request.signal);
        request.signal.throwIfAborted();
        continue;
      }
      if (last) return response;
      const delay = retryDelay(response, settings, attempt);
      if (delay === null) return response;
      // An unread body keeps the connection busy until it is garbage-collected.
      await response.body?.cancel().catch(() => undefined);
      await settings.sleep(delay, request.signal);
      request.signal.throwIfAborted();
    }
  };
}

function retryDelay(response: Response, settings: RetrySettings, attempt: number): number | null {
  const { status } = response;
  if (status !== 429 && (status < 500 || status === 501)) return null;
  const retryAfter = retryAfterMs(response.headers.get('Retry-After'));
  if (retryAfter !== null && retryAfter > MAX_RETRY_AFTER_MS) return null;
  return Math.max(backoff(settings, attempt), retryAfter ?? 0);
}

/** Full jitter (AWS's "Exponential Backoff and Jitter"): spreads the retries of many wallets hit by one outage. */
export function backoff(settings: Pick<RetrySettings, 'baseDelayMs' | 'maxDelayMs' | 'random'>, attempt: number) {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return Math.floor(settings.random() * ceiling);
}

/** Delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts; the timer never outlives it. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
