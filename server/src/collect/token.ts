/**
 * The data-collection link's capability: `t` = base64url(HMAC-SHA256(option secret, `collect:<paymentId>`)).
 * Only the gateway's options answer hands it out, so only a wallet that may pay the payment can open the form or
 * post to it; it needs no storage and no expiry of its own, since the payment's state decides whether the form is
 * still open (docs/decisions.md §16).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** base64url of 32 bytes, unpadded. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function digest(paymentId: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(`collect:${paymentId}`, 'utf8').digest();
}

export function collectToken(paymentId: string, secret: Buffer): string {
  return digest(paymentId, secret).toString('base64url');
}

/**
 * Constant-time comparison under each secret (the current one, then those a rotation retired, so a link handed out
 * before the rotation still opens); any malformed token is simply wrong.
 */
export function collectTokenMatches(paymentId: string, token: unknown, secrets: readonly Buffer[]): boolean {
  if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return false;
  // Compared as text, so a last character differing only in base64url's spare bits is a different token.
  const given = Buffer.from(token, 'utf8');
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(collectToken(paymentId, secret), 'utf8');
    // Every secret is tried, so the time taken does not say which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}
