/**
 * The limit of the refund claim operations (docs/decisions.md §22.6), which take no credential: the claim link's
 * token is the capability. Guessing a 256-bit token is hopeless anyway; the limit keeps one address from loading
 * the database with lookups, and one link from being hammered, with the server's token buckets (http/rateLimit.ts).
 * A request refused per address does not use up the link's bucket.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import { TokenBuckets } from './rateLimit.js';

/** A buyer needs two or three requests per link; a page reloaded now and then stays far below either limit. */
export const CLAIM_LIMITS = {
  /** Per client address (`req.ip`, so behind a proxy `trustProxy` decides which one). */
  perIp: { rps: 1, burst: 30 },
  /** Per link: ten at once, then one every 10 seconds. */
  perToken: { rps: 0.1, burst: 10 },
} as const;

/** One instance for both operations, so lookup and claim share each bucket. */
export function refundClaimRateLimit(runtime: { now: () => number }): RequestHandler {
  const byIp = new TokenBuckets({ ...CLAIM_LIMITS.perIp, now: runtime.now });
  const byToken = new TokenBuckets({ ...CLAIM_LIMITS.perToken, now: runtime.now });
  return (req, _res, next) => {
    const token = (req.body as { token?: unknown } | undefined)?.token;
    // Buckets are named by the token's hash, so this process's memory holds no usable link.
    const link = typeof token === 'string' ? createHash('sha256').update(token, 'utf8').digest('hex') : '';
    const wait = byIp.take(`ip:${req.ip ?? ''}`) || byToken.take(`link:${link}`);
    if (wait === 0) return next();
    next(
      new ApiError(
        'rate_limited',
        'Too many refund link requests from this address or for this link. Retry after the number of seconds in the Retry-After header.',
        { headers: { 'Retry-After': String(wait) } },
      ),
    );
  };
}
