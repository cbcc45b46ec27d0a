/** The fetch the SDK calls: the platform's, or one injected by the caller (tests, proxies, instrumentation). */
export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. Default 2. */
  retries?: number;
  /** The backoff's first ceiling; each retry doubles it. Default 500. */
  baseDelayMs?: number;
  /** The backoff's largest ceiling. Default 5000. */
  maxDelayMs?: number;
}

export type RetrySettings = Required<RetryOptions>;

export const DEFAULT_RETRY: RetrySettings = { retries: 2, baseDelayMs: 500, maxDelayMs: 5000 };

/**
 * A `Retry-After` longer than this is not waited for: the error reaches the caller, who can decide, rather than a
 * request hanging for minutes. Stripe's client draws the same line.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * `idempotent`: repeating the request cannot apply it twice, so answers that may follow an applied request (5xx, a
 * network failure, an idempotency key still in flight) are retried. `once`: only a 429 is retried, because the
 * server refuses over-limit requests before doing anything (docs/decisions.md §2, order of checks).
 */
export type Replay = 'idempotent' | 'once';

export interface RetryHooks {
  /** Called before a retry that follows an attempt which may have been applied (5xx or a network failure). */
  onAmbiguousFailure?: () => void;
}

export function retrySettings(options: RetryOptions | undefined): RetrySettings {
  const settings = { ...DEFAULT_RETRY, ...options };
  for (const [name, value] of Object.entries(settings)) {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`retry.${name} must be a number >= 0`);
  }
  settings.retries = Math.floor(settings.retries);
  return settings;
}

/** HTTP's idempotent reads, and requests made idempotent by an `Idempotency-Key`. */
export function replayOf(request: Request): Replay {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD' || request.headers.has('Idempotency-Key')) return 'idempotent';
  return 'once';
}

/**
 * Wraps `fetchImpl` with retries: 429 (honouring `Retry-After`), 5xx except 501 (which no retry fixes), network
 * failures (fetch's `TypeError`) and, for a keyed request on a retry, `409 idempotency_conflict` (the earlier
 * attempt is still being processed). Delays are full-jitter exponential backoff; `Retry-After` is a floor. The
 * request's signal aborts the wait. Never retries any other 4xx.
 */
export function retryingFetch(
  fetchImpl: FetchLike,
  settings: RetrySettings,
  replay: Replay | ((request: Request) => Replay) = replayOf,
  hooks: RetryHooks = {},
): FetchLike {
  return async (request) => {
    const mode = typeof replay === 'function' ? replay(request) : replay;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= settings.retries;
      let response: Response;
      try {
        // Each attempt sends a copy, so the body is still there for the next one.
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        // An abort rejects with the signal's reason, whatever its type: never retried.
        if (last || mode !== 'idempotent' || request.signal.aborted || !(error instanceof TypeError)) throw error;
        hooks.onAmbiguousFailure?.();
        await sleep(backoff(settings, attempt), request.signal);
        continue;
      }
      if (last) return response;
      const delay = await retryDelay(response, request, attempt, mode, settings);
      if (delay === null) return response;
      if (response.status >= 500) hooks.onAmbiguousFailure?.();
      // An unread body keeps the connection busy until it is garbage-collected.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}

async function retryDelay(
  response: Response,
  request: Request,
  attempt: number,
  mode: Replay,
  settings: RetrySettings,
): Promise<number | null> {
  const { status } = response;
  const retryable =
    status === 429 ||
    (mode === 'idempotent' &&
      ((status >= 500 && status !== 501) ||
        (status === 409 && attempt > 0 && request.headers.has('Idempotency-Key') && (await isInFlight(response)))));
  if (!retryable) return null;
  const retryAfter = retryAfterMs(response.headers.get('Retry-After'));
  if (retryAfter !== null && retryAfter > MAX_RETRY_AFTER_MS) return null;
  return Math.max(backoff(settings, attempt), retryAfter ?? 0);
}

/**
 * On a retry of our own keyed request the body is the same, so `idempotency_conflict` can only mean that the earlier
 * attempt is still in flight on the server (its answer was lost, e.g. a proxy timeout); it resolves once that
 * attempt completes, and the retry then gets its replay.
 */
async function isInFlight(response: Response): Promise<boolean> {
  try {
    const body = (await response.clone().json()) as { code?: unknown } | null;
    return body?.code === 'idempotency_conflict';
  } catch {
    return false;
  }
}

/** Full jitter (AWS's "Exponential Backoff and Jitter"): spreads the retries of many clients hit by one outage. */
export function backoff(settings: RetrySettings, attempt: number): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return Math.floor(Math.random() * ceiling);
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
