/**
 * Where webhooks may go. The rule is one for both modes: HTTPS to a publicly routable address. The exception:
 * with PAYGATE_WEBHOOK_ALLOW_LOOPBACK, a test-mode endpoint may be `http://` on loopback.
 *
 * Names are resolved here and the delivery connects to the address that was checked, so a DNS answer that changes
 * between check and connect (rebinding) cannot reach a private address.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 can embed private IPv4
  ['fc00::', 7], // unique local, including fd00:ec2::254 (metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address, if any. */
function embeddedIpv4(address: string): string | null {
  const m = /^::(?:ffff:(?:0{1,4}:)?)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return isPublicAddress(v4);
    return !blocked.check(address, 'ipv6');
  }
  return !blocked.check(address, 'ipv4');
}

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return address.startsWith('127.');
  if (family === 6) return address === '::1' || (embeddedIpv4(address)?.startsWith('127.') ?? false);
  return false;
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
