/**
 * EVM chains in the chain configuration (`chains` in a chain file or preset, chains/chainsSetting.ts): the chain, its
 * relayer, its assets (ERC-20 tokens by address, and the native coin) and their price feeds.
 */
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import { findCurrency } from '../../currencies.js';
import type { ChainMode } from '../chainMode.js';
import { explorerTxUrlSchema } from '../explorer.js';
import {
  rpcEndpointSchema,
  rpcEndpointsOf,
  rpcUrlListSchema,
  sendEndpointsOf,
  type RpcEndpointConfig,
} from '../rpcEndpoints.js';

export interface AssetConfig {
  /** CAIP-19, e.g. `eip155:8453/erc20:0x8335…` or `eip155:8453/slip44:60` for the native coin. */
  caip19: string;
  /** The token contract, checksummed; null for the native coin. */
  address: Address | null;
  decimals: number;
  symbol: string;
  name: string;
  iconUrl: string | null;
  networkIconUrl: string | null;
  networkName: string;
  /** Whether the token implements EIP-3009 transferWithAuthorization (Circle's FiatToken v2 does). */
  eip3009: boolean;
  /** The ISO 4217 currency a stablecoin is worth one unit of (USDC: `USD`, EURC: `EUR`); null for other assets. */
  peg: string | null;
}

/** A Chainlink-style price feed (AggregatorV3Interface) of one pair. */
export interface PriceFeedConfig {
  /** The feed's proxy, checksummed. */
  address: Address;
  /** The oldest round accepted, in seconds since its `updatedAt`: the feed's heartbeat plus time for it to land. */
  heartbeatS: number;
}

export interface EvmChainConfig {
  caip2: `eip155:${number}`;
  namespace: 'eip155';
  chainId: number;
  name: string;
  mode: ChainMode;
  /** The first endpoint's URL: what code that needs one URL (and configurations written before rpcUrls) uses. */
  rpcUrl: string;
  /** Every endpoint the chain's reads fail over among and its sends go to (chains/rpcEndpoints.ts). */
  rpcEndpoints?: RpcEndpointConfig[];
  /** Send-only endpoints: signed transactions go to them alone, reads never (rpcEndpoints.ts sendEndpointsOf). */
  sendRpcEndpoints?: RpcEndpointConfig[];
  /** How many blocks an endpoint's head may trail the best known head and still be asked (chains/rpcPool.ts). */
  maxHeadLag?: number;
  /** Blocks on top of the one that includes a payment's transaction, plus that one, before it counts as final. */
  confirmations: number;
  /** Seconds per block (an option's `etaS`): the chain file's `blockTimeS`, else the known value of the chain id. */
  blockTimeS: number;
  /** An explorer's transaction page, `{txId}` standing for the hash; the checkout links to it. Null: no link. */
  explorerTxUrl: string | null;
  /**
   * An RPC URL wallets may be given (`wallet_addEthereumChain` from the checkout): public, unlike `rpcUrl`, which may
   * hold a provider's key and is never shown. Null: the checkout asks the buyer to add the network themselves.
   */
  publicRpcUrl: string | null;
  /** Private key of the account that submits authorizations and pays their gas. A secret: never logged or answered. */
  relayerKey: Hex;
  /** Multicall3, which the startup checks batch their reads through. */
  multicall3: Address;
  assets: AssetConfig[];
  /**
   * Price feeds by pair, `BASE/QUOTE` (e.g. `ETH/USD`: USD per ETH). BASE is an asset's symbol, or its peg's code.
   * Empty on a chain priced from the static table (test mode) or not priced at all.
   */
  priceFeeds: Record<string, PriceFeedConfig>;
  /** Chainlink's L2 sequencer uptime feed; its prices are refused while the sequencer is down. Null on L1s. */
  sequencerUptimeFeed: Address | null;
}

/**
 * Seconds per block of the chains this server knows. A chain file for any other chain must give `blockTimeS`: a
 * guess (it was 12 s, Ethereum's) would promise a buyer on a fast chain a wait many times too long, or the reverse.
 */
export const KNOWN_BLOCK_TIME_S: Readonly<Record<number, number>> = {
  1: 12,
  11155111: 12,
  8453: 2,
  84532: 2,
  10: 2,
  11155420: 2,
  42161: 0.25,
  421614: 0.25,
  137: 2,
  80002: 2,
  31337: 1,
};

/** Where Multicall3 lives on every chain that has it (deployed with a presigned transaction). */
export const CANONICAL_MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

const httpUrl = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

const addressSchema = z
  .string()
  .refine(
    (v) => isAddress(v, { strict: true }),
    'must be an address (0x + 40 hex, valid EIP-55 checksum if mixed-case)',
  )
  .transform((v) => getAddress(v));

const assetSchema = z
  .object({
    caip19: z.string().regex(/^eip155:[0-9]{1,32}\/(erc20|slip44):[-.%a-zA-Z0-9]{1,128}$/, {
      message: 'must be a CAIP-19 id of an eip155 asset (`…/erc20:0x…` or `…/slip44:<coin type>`)',
    }),
    address: addressSchema.nullable(),
    decimals: z.number().int().min(0).max(77),
    symbol: z.string().min(1).max(32),
    name: z.string().min(1).max(100),
    iconUrl: httpUrl.nullable().default(null),
    networkIconUrl: httpUrl.nullable().default(null),
    networkName: z.string().min(1).max(100),
    eip3009: z.boolean(),
    peg: z
      .string()
      .refine((code) => findCurrency(code) !== null, 'must be an active ISO 4217 currency code, e.g. USD')
      .nullable()
      .default(null),
  })
  .strict();

/** `BASE/QUOTE`: a symbol or currency code on each side, no spaces. */
export const PRICE_PAIR = /^[^\s/]{1,32}\/[^\s/]{1,32}$/;

const priceFeedSchema = z
  .object({
    address: addressSchema,
    heartbeatS: z.number().int().min(1).max(604_800),
  })
  .strict();

export const evmChainSchema = z
  .object({
    caip2: z.string().regex(/^eip155:[1-9][0-9]{0,15}$/, { message: 'must be eip155:<decimal chain id>' }),
    name: z.string().min(1).max(100),
    mode: z.enum(['live', 'test'], { message: 'must be live or test' }),
    // The URL may embed a provider's API key, so its value never appears in an error.
    rpcUrl: rpcUrlListSchema.optional(),
    rpcUrls: z.array(rpcEndpointSchema).min(1).optional(),
    sendRpcUrls: z.array(rpcEndpointSchema).min(1).optional(),
    maxHeadLag: z.number().int().min(0).max(10_000).optional(),
    confirmations: z.number().int().min(1).max(1000),
    blockTimeS: z.number().positive().max(3600).optional(),
    explorerTxUrl: explorerTxUrlSchema,
    publicRpcUrl: httpUrl.nullable().default(null),
    relayerKey: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, { message: 'must be a private key: 0x + 64 hex characters' })
      .refine((key) => {
        try {
          privateKeyToAccount(key as Hex);
          return true;
        } catch {
          return false;
        }
      }, 'is not a valid secp256k1 private key'),
    multicall3: addressSchema.default(CANONICAL_MULTICALL3),
    assets: z.array(assetSchema).min(1),
    // Pairs are checked in checkChain: a record's key error would not say what a key must be.
    priceFeeds: z.record(z.string(), priceFeedSchema).default({}),
    sequencerUptimeFeed: addressSchema.nullable().default(null),
  })
  .strict();

/** The checks across fields that a schema of each field cannot make; each names the field it blames. */
export function checkEvmChain(chain: z.infer<typeof evmChainSchema>, at: string): EvmChainConfig {
  const chainId = Number(chain.caip2.slice('eip155:'.length));
  let natives = 0;
  const seen = new Set<string>();
  const assets = chain.assets.map((asset, i): AssetConfig => {
    const field = `${at}.assets[${i}]`;
    const [assetChain, assetId] = asset.caip19.split('/') as [string, string];
    if (assetChain !== chain.caip2) {
      throw new Error(`${field}.caip19: ${asset.caip19} is not on chain ${chain.caip2}`);
    }
    const [assetNamespace, reference] = assetId.split(':') as [string, string];
    if (assetNamespace === 'slip44') {
      natives += 1;
      if (asset.address !== null) throw new Error(`${field}.address: must be null for the native coin (slip44)`);
      if (asset.decimals !== 18) throw new Error(`${field}.decimals: an EVM chain's native coin has 18 decimals`);
      if (asset.eip3009) throw new Error(`${field}.eip3009: the native coin cannot implement EIP-3009`);
    } else {
      if (asset.address === null) throw new Error(`${field}.address: an erc20 asset needs its token address`);
      if (!isAddress(reference, { strict: false }) || getAddress(reference) !== asset.address) {
        throw new Error(`${field}.caip19: the erc20 reference must be the asset's address ${asset.address}`);
      }
    }
    const key = asset.address ?? 'native';
    if (seen.has(key)) throw new Error(`${field}: the chain lists this asset twice`);
    seen.add(key);
    return { ...asset, caip19: asset.address ? `${chain.caip2}/erc20:${asset.address}` : asset.caip19 };
  });
  if (natives > 1) throw new Error(`${at}.assets: more than one native coin (slip44) asset`);
  for (const pair of Object.keys(chain.priceFeeds)) {
    if (!PRICE_PAIR.test(pair)) throw new Error(`${at}.priceFeeds.${pair}: must be a pair BASE/QUOTE, e.g. ETH/USD`);
    const [base, quote] = pair.split('/');
    if (base === quote) throw new Error(`${at}.priceFeeds.${pair}: a pair needs two different sides`);
  }
  const blockTimeS = chain.blockTimeS ?? KNOWN_BLOCK_TIME_S[chainId];
  if (blockTimeS === undefined) {
    throw new Error(
      `${at}.blockTimeS: this server does not know the block time of ${chain.caip2}; ` +
        'give it in seconds per block (for example 2)',
    );
  }
  const rpcEndpoints = rpcEndpointsOf(chain.rpcUrl, chain.rpcUrls, at);
  const { rpcUrls: _listed, sendRpcUrls, ...rest } = chain;
  const sendRpcEndpoints = sendEndpointsOf(sendRpcUrls);
  return {
    ...rest,
    ...(sendRpcEndpoints ? { sendRpcEndpoints } : {}),
    blockTimeS,
    rpcUrl: rpcEndpoints[0]!.url,
    rpcEndpoints,
    caip2: chain.caip2 as `eip155:${number}`,
    namespace: 'eip155',
    chainId,
    relayerKey: chain.relayerKey as Hex,
    assets,
  };
}

/** The native coin's display facts, which viem needs to describe a chain. */
export function nativeAsset(chain: EvmChainConfig): AssetConfig | undefined {
  return chain.assets.find((a) => a.address === null);
}
