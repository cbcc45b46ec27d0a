/**
 * A `Retry-After` longer than this is not waited for: the error reaches the caller, who can decide, rather than a
 * request (or a wallet screen) hanging for minutes. Stripe's client draws the same line.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Full jitter (AWS's "Exponential Backoff and Jitter"): spreads the retries of many clients hit by one outage.
 * `random` is the jitter's source, a number in [0, 1); default `Math.random`.
 */
export function backoff(
  settings: { baseDelayMs: number; maxDelayMs: number; random?: () => number },
  attempt: number,
): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return Math.floor((settings.random ?? Math.random)() * ceiling);
}

/** Delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
