/**
 * A chain's RPC endpoints in its configuration: `rpcUrl` (one URL, or a comma list, so that a preset's
 * `${PAYGATE_RPC_…}` variable can name several) and/or `rpcUrls` (URLs, or `{url, timeoutMs, weight}`). Both
 * namespaces share this, so an EVM chain and a Solana chain are configured the same way.
 */
import { z } from 'zod';

export interface RpcEndpointConfig {
  url: string;
  /** How long one call may take on this endpoint before the next one is asked. */
  timeoutMs: number;
  /** Preference among healthy endpoints of similar latency; higher is asked first. */
  weight: number;
}

export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

const isHttpUrl = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

/** One URL or a comma list of them; a URL may hold a provider's key, so no error quotes it. */
export const rpcUrlListSchema = z
  .string()
  .refine((v) => v.split(',').every((u) => isHttpUrl(u.trim())), 'must be an http(s) URL, or a comma list of them');

export const rpcEndpointSchema = z.union([
  rpcUrlListSchema,
  z
    .object({
      url: z.string().refine(isHttpUrl, 'must be an http(s) URL'),
      timeoutMs: z.number().int().min(100).max(120_000).default(DEFAULT_RPC_TIMEOUT_MS),
      weight: z.number().min(0).max(1000).default(1),
    })
    .strict(),
]);

export type RpcEndpointInput = z.infer<typeof rpcEndpointSchema>;

/** The endpoints of a chain: `rpcUrls` first, then `rpcUrl`'s, each URL once. */
export function rpcEndpointsOf(
  rpcUrl: string | undefined,
  rpcUrls: RpcEndpointInput[] | undefined,
  at: string,
): RpcEndpointConfig[] {
  const endpoints: RpcEndpointConfig[] = [];
  const add = (url: string, timeoutMs = DEFAULT_RPC_TIMEOUT_MS, weight = 1) => {
    if (!endpoints.some((e) => e.url === url)) endpoints.push({ url, timeoutMs, weight });
  };
  for (const entry of rpcUrls ?? []) {
    if (typeof entry === 'string') splitList(entry).forEach((u) => add(u));
    else add(entry.url, entry.timeoutMs, entry.weight);
  }
  if (rpcUrl) splitList(rpcUrl).forEach((u) => add(u));
  if (endpoints.length === 0) throw new Error(`${at}.rpcUrl: a chain needs rpcUrl or rpcUrls`);
  return endpoints;
}

/**
 * A chain's send-only endpoints (`sendRpcUrls`): when listed, signed transactions go to them alone and reads never
 * do (a private relay or a provider's protected-send URL keeps a transaction out of the public mempool until it is
 * mined, and often answers no reads at all). None listed: sends go to the read endpoints (decisions.md §27.13).
 */
export function sendEndpointsOf(sendRpcUrls: RpcEndpointInput[] | undefined): RpcEndpointConfig[] | undefined {
  if (!sendRpcUrls?.length) return undefined;
  const endpoints: RpcEndpointConfig[] = [];
  const add = (url: string, timeoutMs = DEFAULT_RPC_TIMEOUT_MS) => {
    if (!endpoints.some((e) => e.url === url)) endpoints.push({ url, timeoutMs, weight: 1 });
  };
  for (const entry of sendRpcUrls) {
    if (typeof entry === 'string') splitList(entry).forEach((u) => add(u));
    else add(entry.url, entry.timeoutMs);
  }
  return endpoints;
}

function splitList(list: string): string[] {
  return list
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}

/** The endpoints of a configuration that may predate `rpcEndpoints` (tests and local chains build it by hand). */
export function endpointsOf(config: { rpcUrl: string; rpcEndpoints?: RpcEndpointConfig[] }): RpcEndpointConfig[] {
  return config.rpcEndpoints ?? [{ url: config.rpcUrl, timeoutMs: DEFAULT_RPC_TIMEOUT_MS, weight: 1 }];
}
