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
import { z } from 'zod';
import { ConfigError } from '../config.js';
import { checkEvmChain, evmChainSchema, type EvmChainConfig } from './eip155/config.js';
import { solanaChainsOf, type SolanaChainConfig } from './solana/config.js';

export type { ChainMode } from './chainMode.js';

export {
  CANONICAL_MULTICALL3,
  nativeAsset,
  PRICE_PAIR,
  type AssetConfig,
  type EvmChainConfig,
  type PriceFeedConfig,
} from './eip155/config.js';

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

const documentSchema = z
  .object({
    chains: z.array(evmChainSchema).default([]),
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
  const chains = result.data.chains.map((chain, i) => checkEvmChain(chain, `chains[${i}]`));
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
