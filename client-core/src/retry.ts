import { backoff, MAX_RETRY_AFTER_MS, retryAfterMs } from './backoff.js';
import type { FetchLike } from './fetch.js';
import type { RetrySettings } from './retrySettings.js';

/**
 * `idempotent`: repeating the request cannot apply it twice, so answers that may follow an applied request (5xx, a
 * network failure, an idempotency key still in flight) are retried. `once`: only a 429 is retried, because the
 * server refuses over-limit requests before doing anything (docs/decisions.md §2, order of checks).
 */
export type Replay = 'idempotent' | 'once';

export interface RetryPolicy {
  /** Per request, or one for all. Default `idempotent`. */
  replay?: Replay | ((request: Request) => Replay);
  /**
   * The API honours `Idempotency-Key` (the merchant API does, the gateway has no keys): on a retry of a keyed request,
   * `409 idempotency_conflict` means that the earlier attempt is still being processed, and is retried too.
   */
  idempotencyKeys?: boolean;
  /** Called before a retry that follows an attempt which may have been applied (5xx or a network failure). */
  onAmbiguousFailure?: () => void;
}

/** HTTP's idempotent reads, and requests made idempotent by an `Idempotency-Key`. */
export function replayOf(request: Request): Replay {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD' || request.headers.has('Idempotency-Key')) return 'idempotent';
  return 'once';
}

/**
 * Wraps `fetchImpl` with retries: 429 (honouring `Retry-After`), and for `idempotent` requests 5xx except 501 (which
 * no retry fixes), network failures (fetch's `TypeError`) and, with `idempotencyKeys`, a keyed request's in-flight
 * conflict. Delays are full-jitter exponential backoff; `Retry-After` is a floor. The request's signal aborts the
 * wait. Never retries any other 4xx.
 */
export function retryingFetch(fetchImpl: FetchLike, settings: RetrySettings, policy: RetryPolicy = {}): FetchLike {
  const replay = policy.replay ?? 'idempotent';
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
        policy.onAmbiguousFailure?.();
        await settings.sleep(backoff(settings, attempt), request.signal);
        // An injected sleep may resolve despite the abort.
        request.signal.throwIfAborted();
        continue;
      }
      if (last) return response;
      const delay = await retryDelay(response, request, attempt, mode, policy, settings);
      if (delay === null) return response;
      if (response.status >= 500) policy.onAmbiguousFailure?.();
      // An unread body keeps the connection busy until it is garbage-collected.
      await response.body?.cancel().catch(() => undefined);
      await settings.sleep(delay, request.signal);
      request.signal.throwIfAborted();
    }
  };
}

async function retryDelay(
  response: Response,
  request: Request,
  attempt: number,
  mode: Replay,
  policy: RetryPolicy,
  settings: RetrySettings,
): Promise<number | null> {
  const { status } = response;
  const retryable =
    status === 429 ||
    (mode === 'idempotent' &&
      ((status >= 500 && status !== 501) ||
        (status === 409 &&
          policy.idempotencyKeys === true &&
          attempt > 0 &&
          request.headers.has('Idempotency-Key') &&
          (await isInFlight(response)))));
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
