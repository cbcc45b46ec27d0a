/**
 * Where webhooks may go. The rule is one for both modes: HTTPS to a globally routable unicast address, and nothing
 * else. The exception: with PAYGATE_WEBHOOK_ALLOW_LOOPBACK, a test-mode endpoint may be `http://` on loopback.
 *
 * The rule is an allowlist, decided by a maintained classification (ipaddr.js `range()`, which knows the special-
 * purpose registries of both families) rather than by a list of blocked ranges that must foresee every spelling:
 * - IPv4: only `unicast`, so private, loopback, link-local (cloud metadata), CGNAT, documentation, benchmarking,
 *   multicast, reserved, AS112 and AMT addresses are all refused;
 * - IPv6: only `unicast` inside global unicast 2000::/3, so every form that embeds or reaches an IPv4 address
 *   (IPv4-compatible ::/96, rfc6145 ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4, Teredo) is refused
 *   whatever it carries; the one exception is IPv4-mapped ::ffff:0:0/96, which a socket connects to as the IPv4
 *   address it maps, so it is judged as that address.
 *
 * Names are resolved here and the delivery connects to the address that was checked, so a DNS answer that changes
 * between check and connect (rebinding) cannot reach a private address.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** The address as the socket will reach it: an IPv4-mapped IPv6 address is its IPv4 address. Null if not an IP. */
function reached(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  // node's isIP accepts only the canonical textual forms; ipaddr.js alone would also take "0x7f.1" and the like.
  if (isIP(address) === 0) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

export function isPublicAddress(address: string): boolean {
  const ip = reached(address);
  if (!ip) return false;
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  return ip.range() === 'unicast' && (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

export function isLoopbackAddress(address: string): boolean {
  return reached(address)?.range() === 'loopback';
}

export class WebhookUrlError extends Error {}

export interface UrlPolicy {
  mode: 'test' | 'live';
  allowLoopback: boolean;
  /** Injected in tests to answer names without a resolver. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export interface CheckedUrl {
  url: URL;
  /** The address the delivery must connect to. */
  address: string;
  family: 4 | 6;
}

const defaultResolve = (host: string) => lookup(host, { all: true, verbatim: true });

/** Parses and checks a webhook URL; throws WebhookUrlError with a message fit for the merchant. */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('The URL is not valid.');
  }
  if (url.username || url.password) throw new WebhookUrlError('The URL must not carry credentials.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopbackAllowed = policy.mode === 'test' && policy.allowLoopback;

  let candidates: { address: string; family: number }[];
  if (isIP(host)) candidates = [{ address: host, family: isIP(host) }];
  else if (LOOPBACK_NAMES.has(host.toLowerCase()))
    candidates = loopbackAllowed ? [{ address: '127.0.0.1', family: 4 }] : [];
  else {
    try {
      candidates = await (policy.resolve ?? defaultResolve)(host);
    } catch {
      throw new WebhookUrlError(`The host ${host} does not resolve.`);
    }
  }
  if (candidates.length === 0) throw new WebhookUrlError(`The host ${host} is not publicly routable.`);

  const allLoopback = candidates.every((c) => isLoopbackAddress(c.address));
  if (loopbackAllowed && allLoopback) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookUrlError('The URL must be http(s).');
    const first = candidates[0]!;
    return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
  }
  if (url.protocol !== 'https:') throw new WebhookUrlError('The URL must use https://.');
  // Every answer must be public: an attacker's name may return a public and a private address together.
  const refused = candidates.find((c) => !isPublicAddress(c.address));
  if (refused) {
    throw new WebhookUrlError(
      refused.address === host
        ? `The host ${host} is not publicly routable.`
        : `The host ${host} resolves to ${refused.address}, which is not publicly routable.`,
    );
  }
  const first = candidates[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
