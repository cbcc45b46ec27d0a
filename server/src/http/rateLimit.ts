/**
 * Per-credential token buckets (docs/decisions.md §6), in this process's memory: with N processes a credential
 * gets up to N× the limit, the documented trade-off against a database round trip per request.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors.js';

export interface RateLimitOptions {
  /** Sustained requests per second. */
  rps: number;
  /** Bucket size: how many requests may arrive at once after a quiet period. */
  burst: number;
  /** Milliseconds since the epoch (the runtime's clock, so tests move time instead of sleeping). */
  now: () => number;
  /** Hard cap on buckets kept; the least recently used goes first. */
  maxBuckets?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  // A Map iterates in insertion order; re-inserting on every use keeps it ordered by last use.
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxBuckets: number;

  constructor(private readonly options: RateLimitOptions) {
    this.maxBuckets = options.maxBuckets ?? 100_000;
  }

  get size(): number {
    return this.buckets.size;
  }

  private level(bucket: Bucket, now: number): number {
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    return Math.min(this.options.burst, bucket.tokens + elapsed * this.options.rps);
  }

  /** Takes one token: 0 when the request may pass, otherwise the whole seconds (≥ 1) until a token is back. */
  take(id: string): number {
    const now = this.options.now();
    const existing = this.buckets.get(id);
    const tokens = existing ? this.level(existing, now) : this.options.burst;
    this.buckets.delete(id);
    const allowed = tokens >= 1;
    this.buckets.set(id, { tokens: allowed ? tokens - 1 : tokens, at: now });
    this.evict(now);
    return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.options.rps));
  }

  /**
   * A bucket that has refilled completely is the same as no bucket, so it can go. Checking from the least recently
   * used end and stopping at the first that is still refilling keeps this O(1) amortised, and bounds the map by the
   * credentials seen within one refill period (burst / rps seconds).
   */
  private evict(now: number): void {
    for (const [id, bucket] of this.buckets) {
      if (this.buckets.size <= this.maxBuckets && this.level(bucket, now) < this.options.burst) return;
      this.buckets.delete(id);
    }
  }
}

/**
 * Answers 429 `rate_limited` with `Retry-After` once a credential's bucket is empty. `credentialOf` names the
 * credential (a key id, an App-Id + Client-Id); requests it returns null for are not limited here.
 */
export function rateLimit(
  options: RateLimitOptions,
  credentialOf: (req: Request, res: Response) => string | null,
): RequestHandler {
  const buckets = new TokenBuckets(options);
  return (req, res, next) => {
    const credential = credentialOf(req, res);
    if (credential === null) return next();
    const wait = buckets.take(credential);
    if (wait === 0) return next();
    next(
      new ApiError(
        'rate_limited',
        'Too many requests for this API key. Retry after the number of seconds in the Retry-After header.',
        { headers: { 'Retry-After': String(wait) } },
      ),
    );
  };
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set once a request took its token, so a request passing several routers is counted once. */
    merchantKeyCounted?: boolean;
  }
}

/** A dashboard request's bucket: its API key's (shared with the merchant API), or its signed-in user's. */
function dashboardCredentialOf(res: Response): string | null {
  const actor = res.locals.dashboardPrincipal?.actor;
  if (actor?.kind === 'api_key') return actor.keyId;
  const user = res.locals.dashboardUser?.user.id;
  return user === undefined ? null : `user:${user}`;
}

/**
 * The limit of a merchant API key (docs/decisions.md §6): one bucket per key for every surface the key reaches, so
 * the merchant and dashboard APIs share it, as the dashboard contract says; a dashboard session's bucket is its
 * user's. Runs after authentication put the key on
 * `res.locals.merchantAuth`; requests without one are not limited here. Routers are mounted without a path, so a
 * request may pass the limiter of more than one; it takes one token all the same. One per runtime, whose buckets every
 * router shares: runtime.ts builds it.
 */
export function merchantKeyRateLimit(options: Omit<RateLimitOptions, 'maxBuckets'>): RequestHandler {
  const take = rateLimit(options, (_req, res) => res.locals.merchantAuth?.key.id ?? dashboardCredentialOf(res));
  return (req, res, next) => {
    if (res.locals.merchantKeyCounted) return next();
    res.locals.merchantKeyCounted = true;
    take(req, res, next);
  };
}
