/**
 * Solana chains in the chain configuration (`solanaChains` beside `chains` in a chain file or preset). A chain is
 * named by its CAIP-2 id, `solana:` + the first 32 characters of its genesis hash; its assets are SPL tokens (by
 * mint) and SOL; the service's fee payer signs every payment transaction and pays its fees, so buyers need no SOL.
 */
import { getBase58Encoder, isAddress, type Address } from '@solana/kit';
import { z } from 'zod';
import { findCurrency } from '../../currencies.js';
import type { ChainMode } from '../chainMode.js';
import type { ConfiguredAsset } from '../configuredChain.js';
import { explorerTxUrlSchema } from '../explorer.js';
import {
  rpcEndpointSchema,
  rpcEndpointsOf,
  rpcUrlListSchema,
  sendEndpointsOf,
  type RpcEndpointConfig,
} from '../rpcEndpoints.js';

/** The common asset fields, with `caip19` as `solana:<ref>/token:<mint>`, or `solana:<ref>/slip44:501` for SOL. */
export interface SolanaAssetConfig extends ConfiguredAsset {
  /** The SPL mint; null for SOL. */
  mint: Address | null;
}

export interface SolanaChainConfig {
  caip2: `solana:${string}`;
  namespace: 'solana';
  name: string;
  mode: ChainMode;
  /** The first endpoint's URL (see EvmChainConfig.rpcUrl). */
  rpcUrl: string;
  rpcEndpoints?: RpcEndpointConfig[];
  /** Send-only endpoints: signed transactions go to them alone, reads never (rpcEndpoints.ts sendEndpointsOf). */
  sendRpcEndpoints?: RpcEndpointConfig[];
  /** How many slots an endpoint may trail the best known slot and still be asked. */
  maxHeadLag?: number;
  /** The commitment at which a payment's transaction counts as final. */
  commitment: 'confirmed' | 'finalized';
  /** See EvmChainConfig.explorerTxUrl: `{txId}` stands for the signature. */
  explorerTxUrl: string | null;
  /** The fee payer's 64-byte secret key, base58 (as Solana wallets export it). A secret: never logged. */
  feePayerKey: string;
  assets: SolanaAssetConfig[];
}

export const SOL_DECIMALS = 9;

const httpUrl = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

const mintSchema = z.string().refine((v) => isAddress(v), 'must be a base58 public key (the mint)');

const solanaAssetSchema = z
  .object({
    caip19: z.string().regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}\/(token:[1-9A-HJ-NP-Za-km-z]{32,44}|slip44:501)$/, {
      message: 'must be a CAIP-19 id of a solana asset (`…/token:<mint>` or `…/slip44:501`)',
    }),
    mint: mintSchema.nullable(),
    decimals: z.number().int().min(0).max(18),
    symbol: z.string().min(1).max(32),
    name: z.string().min(1).max(100),
    iconUrl: httpUrl.nullable().default(null),
    networkIconUrl: httpUrl.nullable().default(null),
    networkName: z.string().min(1).max(100),
    peg: z
      .string()
      .refine((code) => findCurrency(code) !== null, 'must be an active ISO 4217 currency code, e.g. USD')
      .nullable()
      .default(null),
  })
  .strict();

export const solanaChainSchema = z
  .object({
    caip2: z.string().regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/, {
      message: 'must be solana:<first 32 characters of the genesis hash>',
    }),
    name: z.string().min(1).max(100),
    mode: z.enum(['live', 'test'], { message: 'must be live or test' }),
    rpcUrl: rpcUrlListSchema.optional(),
    rpcUrls: z.array(rpcEndpointSchema).min(1).optional(),
    sendRpcUrls: z.array(rpcEndpointSchema).min(1).optional(),
    maxHeadLag: z.number().int().min(0).max(100_000).optional(),
    commitment: z.enum(['confirmed', 'finalized']).default('confirmed'),
    explorerTxUrl: explorerTxUrlSchema,
    feePayerKey: z.string().refine((key) => {
      try {
        return getBase58Encoder().encode(key).length === 64;
      } catch {
        return false;
      }
    }, 'must be a 64-byte secret key in base58'),
    assets: z.array(solanaAssetSchema).min(1),
  })
  .strict();

export function checkSolanaChain(chain: z.infer<typeof solanaChainSchema>, at: string): SolanaChainConfig {
  let natives = 0;
  const assets = chain.assets.map((asset, i): SolanaAssetConfig => {
    const field = `${at}.assets[${i}]`;
    const [assetChain, assetId] = asset.caip19.split('/') as [string, string];
    if (assetChain !== chain.caip2) throw new Error(`${field}.caip19: ${asset.caip19} is not on chain ${chain.caip2}`);
    if (assetId === 'slip44:501') {
      natives += 1;
      if (asset.mint !== null) throw new Error(`${field}.mint: must be null for SOL (slip44:501)`);
      if (asset.decimals !== SOL_DECIMALS) throw new Error(`${field}.decimals: SOL has 9 decimals`);
    } else if (asset.mint === null || assetId !== `token:${asset.mint}`) {
      throw new Error(`${field}.caip19: the token reference must be the asset's mint`);
    }
    return { ...asset, mint: asset.mint as Address | null };
  });
  if (natives > 1) throw new Error(`${at}.assets: more than one SOL asset`);
  const rpcEndpoints = rpcEndpointsOf(chain.rpcUrl, chain.rpcUrls, at);
  const { rpcUrls: _listed, sendRpcUrls, ...rest } = chain;
  const sendRpcEndpoints = sendEndpointsOf(sendRpcUrls);
  return {
    ...rest,
    ...(sendRpcEndpoints ? { sendRpcEndpoints } : {}),
    rpcUrl: rpcEndpoints[0]!.url,
    rpcEndpoints,
    caip2: chain.caip2 as `solana:${string}`,
    namespace: 'solana',
    assets,
  };
}

export function solanaChainsOf(raw: unknown[], at = 'solanaChains'): SolanaChainConfig[] {
  return raw.map((entry, i) => {
    const result = solanaChainSchema.safeParse(entry);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      throw new Error(`${at}[${i}]${path}: ${issue.message}`);
    }
    return checkSolanaChain(result.data, `${at}[${i}]`);
  });
}
