/**
 * The chain configuration: which EVM chains the gateway serves, how it reaches them, and the assets it accepts on
 * each. `PAYGATE_CHAINS` selects it:
 *
 *   local                  anvil, started by this process (local.ts), in test mode
 *   live | testnet         the shipped presets (presets/*.json): mainnets, or their testnets
 *   <path>                 a JSON file of the same shape
 *
 * A comma list combines presets and files (`live,testnet` serves live payments on mainnets and test payments on
 * testnets). Strings in a file may hold `${PAYGATE_…}` placeholders, expanded from the environment, so RPC URLs that
 * embed an API key and the relayer key never sit in the file.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAddress, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import { ConfigError } from '../config.js';
import { explorerTxUrlSchema } from './explorer.js';
import { solanaChainsOf, type SolanaChainConfig } from './solana/config.js';
import { findCurrency } from '../payments/currencies.js';

/** Payments of a mode are served only on chains of that mode: live payments never touch a testnet, and back. */
export type ChainMode = 'live' | 'test';

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
  rpcUrl: string;
  /** Blocks on top of the one that includes a payment's transaction, plus that one, before it counts as final. */
  confirmations: number;
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

/** Where Multicall3 lives on every chain that has it (deployed with a presigned transaction). */
export const CANONICAL_MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

const presetsDir = join(dirname(fileURLToPath(import.meta.url)), 'presets');

/** The shipped configurations, selected by name in PAYGATE_CHAINS. */
export const PRESETS: Record<string, string> = {
  live: join(presetsDir, 'live.json'),
  testnet: join(presetsDir, 'testnet.json'),
  solana: join(presetsDir, 'solana.json'),
  'solana-devnet': join(presetsDir, 'solana-devnet.json'),
};

type Env = Record<string, string | undefined>;

/** Placeholders may name only PAYGATE_ variables, so a chain file cannot copy an unrelated secret into a URL. */
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^PAYGATE_[A-Z0-9_]+$/;

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );
}

/** A variable's value, or its `NAME_FILE` form (the Docker/Kubernetes secrets convention config.ts follows). */
function readVariable(env: Env, name: string, field: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const file = env[`${name}_FILE`];
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(
      `${field}: \${${name}} names ${name}_FILE, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** Replaces every `${PAYGATE_…}` in every string of the document; any placeholder left unresolved is an error. */
export function expandPlaceholders(doc: unknown, env: Env, path: PropertyKey[] = []): unknown {
  if (typeof doc === 'string') {
    return doc.replace(PLACEHOLDER, (_match, name: string) => {
      const field = fieldPath(path);
      if (!VARIABLE_NAME.test(name)) {
        throw new Error(`${field}: placeholder \${${name}} must name a PAYGATE_ variable (A-Z, 0-9, _)`);
      }
      const value = readVariable(env, name, field);
      if (value === undefined) throw new Error(`${field}: \${${name}} is not set (set ${name} or ${name}_FILE)`);
      return value;
    });
  }
  if (Array.isArray(doc)) return doc.map((item, i) => expandPlaceholders(item, env, [...path, i]));
  if (doc !== null && typeof doc === 'object') {
    return Object.fromEntries(
      Object.entries(doc).map(([key, value]) => [key, expandPlaceholders(value, env, [...path, key])]),
    );
  }
  return doc;
}

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

const chainSchema = z
  .object({
    caip2: z.string().regex(/^eip155:[1-9][0-9]{0,15}$/, { message: 'must be eip155:<decimal chain id>' }),
    name: z.string().min(1).max(100),
    mode: z.enum(['live', 'test'], { message: 'must be live or test' }),
    // The URL may embed a provider's API key, so its value never appears in an error.
    rpcUrl: httpUrl,
    confirmations: z.number().int().min(1).max(1000),
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

const documentSchema = z
  .object({
    chains: z.array(chainSchema).default([]),
    // Parsed by chains/solana/config.ts; a chain file may hold EVM chains, Solana chains, or both.
    solanaChains: z.array(z.unknown()).default([]),
  })
  .strict()
  .refine((doc) => doc.chains.length + doc.solanaChains.length > 0, {
    message: 'must list at least one chain (chains or solanaChains)',
  });

export interface ChainDocuments {
  evm: EvmChainConfig[];
  solana: SolanaChainConfig[];
}

/** The checks across fields that a schema of each field cannot make; each names the field it blames. */
function checkChain(chain: z.infer<typeof chainSchema>, at: string): EvmChainConfig {
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
  return {
    ...chain,
    caip2: chain.caip2 as `eip155:${number}`,
    namespace: 'eip155',
    chainId,
    relayerKey: chain.relayerKey as Hex,
    assets,
  };
}

/** Validates a parsed chain document (placeholders already expanded); errors name the field, e.g. `chains[0].rpcUrl`. */
export function parseChainsDocument(doc: unknown): EvmChainConfig[] {
  return parseChainDocuments(doc).evm;
}

export function parseChainDocuments(doc: unknown): ChainDocuments {
  const result = documentSchema.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = fieldPath(issue.path) || '(the document)';
    throw new Error(`${field}: ${issue.message}`);
  }
  const chains = result.data.chains.map((chain, i) => checkChain(chain, `chains[${i}]`));
  const solana = solanaChainsOf(result.data.solanaChains);
  const ids = new Set<string>();
  [...chains, ...solana].forEach((chain, i) => {
    const at = i < chains.length ? `chains[${i}]` : `solanaChains[${i - chains.length}]`;
    if (ids.has(chain.caip2)) throw new Error(`${at}.caip2: ${chain.caip2} is listed twice`);
    ids.add(chain.caip2);
  });
  return { evm: chains, solana };
}

/** Reads and validates one chain file; a problem is a ConfigError that names PAYGATE_CHAINS, the file and the field. */
export function loadChainsFile(path: string, env: Env): EvmChainConfig[] {
  return loadChainDocumentsFile(path, env).evm;
}

function loadChainDocumentsFile(path: string, env: Env): ChainDocuments {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      'PAYGATE_CHAINS',
      `names a file that cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): ${path}`,
    );
  }
  try {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new Error(`not valid JSON (${(err as Error).message})`);
    }
    return parseChainDocuments(expandPlaceholders(doc, env));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError('PAYGATE_CHAINS', `file ${path}: ${(err as Error).message}`);
  }
}

/**
 * The chains a PAYGATE_CHAINS value other than `local` names: presets by name and files by path, comma-separated.
 * A chain may appear in only one of them.
 */
export function loadChainDocuments(setting: string, env: Env): ChainDocuments {
  const entries = setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError('PAYGATE_CHAINS', 'names no chain configuration');
  if (entries.includes('local')) {
    throw new ConfigError('PAYGATE_CHAINS', 'local starts its own chain and cannot be combined with other entries');
  }
  const all: ChainDocuments = { evm: [], solana: [] };
  for (const entry of entries) {
    const path = PRESETS[entry] ?? resolve(entry);
    const docs = loadChainDocumentsFile(path, env);
    for (const chain of [...docs.evm, ...docs.solana]) {
      if ([...all.evm, ...all.solana].some((c) => c.caip2 === chain.caip2)) {
        throw new ConfigError('PAYGATE_CHAINS', `configures ${chain.caip2} twice (again in ${entry})`);
      }
    }
    all.evm.push(...docs.evm);
    all.solana.push(...docs.solana);
  }
  return all;
}

export function loadChainsSetting(setting: string, env: Env): EvmChainConfig[] {
  return loadChainDocuments(setting, env).evm;
}

export function loadSolanaChainsSetting(setting: string, env: Env): SolanaChainConfig[] {
  return loadChainDocuments(setting, env).solana;
}

/** The native coin's display facts, which viem needs to describe a chain. */
export function nativeAsset(chain: EvmChainConfig): AssetConfig | undefined {
  return chain.assets.find((a) => a.address === null);
}
