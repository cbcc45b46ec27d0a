/**
 * Option ids are self-contained signed tokens (docs/decisions.md §17): everything confirm checks is in the token,
 * under an HMAC-SHA256 of PAYGATE_OPTION_SECRET, so listing options writes nothing and an option can never be
 * altered by the wallet. A token is `opt_<base64url(JSON)>.<base64url(HMAC)>`; the HMAC covers the prefix and the
 * payload, and is compared in constant time before the payload is parsed.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OptionClaims, OptionKind, VerifiedOption } from '../chains/adapter.js';

export const OPTION_PREFIX = 'opt_';
/** The contract's limit (the spec's 2^16 characters). */
export const MAX_OPTION_ID_LENGTH = 65_536;
const TOKEN_VERSION = 1;

interface Wire {
  v: number;
  p: string;
  a: string;
  c: string;
  u: string;
  n: string;
  d: number;
  r: string;
  k: OptionKind;
  x: number | null;
  e: number;
  q: [string, string, string] | null;
  i: number;
  s: string;
}

function mac(secret: Buffer, signed: string): Buffer {
  return createHmac('sha256', secret).update(signed).digest();
}

export function newSalt(): string {
  return randomBytes(9).toString('base64url');
}

export function signOption(secret: Buffer, claims: OptionClaims): string {
  const wire: Wire = {
    v: TOKEN_VERSION,
    p: claims.paymentId,
    a: claims.account,
    c: claims.chain,
    u: claims.asset,
    n: claims.amount,
    d: claims.decimals,
    r: claims.recipient,
    k: claims.kind,
    x: claims.quoteExpiresAt,
    e: claims.deadline,
    q: claims.rate ? [claims.rate.numerator, claims.rate.denominator, claims.rate.source] : null,
    i: claims.issuedAt,
    s: claims.salt,
  };
  const signed = OPTION_PREFIX + Buffer.from(JSON.stringify(wire)).toString('base64url');
  const token = `${signed}.${mac(secret, signed).toString('base64url')}`;
  if (token.length > MAX_OPTION_ID_LENGTH) throw new Error(`option id of ${token.length} characters exceeds the limit`);
  return token;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * `verifyOption` under each secret in turn: the current one, then those a rotation retired
 * (PAYGATE_OPTION_SECRET_PREVIOUS), so an option listed just before the rotation still confirms (§29.15).
 */
export function verifyOptionUnder(secrets: readonly Buffer[], token: string, paymentId: string): VerifiedOption | null {
  for (const secret of secrets) {
    const verified = verifyOption(secret, token, paymentId);
    if (verified) return verified;
  }
  return null;
}

/**
 * The option's claims when `token` is an untouched option of `paymentId` issued with `secret`; null otherwise (the
 * caller answers `params_validation` without saying which check failed).
 */
export function verifyOption(secret: Buffer, token: string, paymentId: string): VerifiedOption | null {
  if (token.length > MAX_OPTION_ID_LENGTH || !token.startsWith(OPTION_PREFIX)) return null;
  const dot = token.lastIndexOf('.');
  if (dot < 0) return null;
  const signed = token.slice(0, dot);
  const given = token.slice(dot + 1);
  if (!BASE64URL.test(given) || !BASE64URL.test(signed.slice(OPTION_PREFIX.length))) return null;
  const expected = mac(secret, signed);
  // Compared as text: base64url decoding ignores a last character's spare bits, so comparing decoded bytes would
  // accept several spellings of one MAC, and an option id must have exactly one.
  const actual = Buffer.from(given, 'utf8');
  const wanted = Buffer.from(expected.toString('base64url'), 'utf8');
  if (actual.length !== wanted.length || !timingSafeEqual(actual, wanted)) return null;
  let wire: Wire;
  try {
    wire = JSON.parse(Buffer.from(signed.slice(OPTION_PREFIX.length), 'base64url').toString('utf8')) as Wire;
  } catch {
    return null;
  }
  // A valid MAC means we wrote it; the version check keeps a future format from being misread.
  if (wire.v !== TOKEN_VERSION || wire.p !== paymentId) return null;
  return {
    claims: {
      paymentId: wire.p,
      account: wire.a,
      chain: wire.c,
      asset: wire.u,
      amount: wire.n,
      decimals: wire.d,
      recipient: wire.r,
      kind: wire.k,
      quoteExpiresAt: wire.x,
      deadline: wire.e,
      rate: wire.q ? { numerator: wire.q[0], denominator: wire.q[1], source: wire.q[2] } : null,
      issuedAt: wire.i,
      salt: wire.s,
    },
    digest: createHash('sha256').update(token).digest('hex'),
    mac: expected,
  };
}
