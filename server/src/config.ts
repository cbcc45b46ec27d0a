/**
 * The only reader of process.env. Every setting is validated at startup; a bad value stops the process with a
 * message that names the variable, because a server that starts half-configured fails later and less clearly.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { code as currencyByCode } from 'currency-codes';
import { z } from 'zod';
import { parseDatabaseUrl } from './db/dialect.js';
import { isValidMnemonic, newMnemonic, normaliseMnemonic } from './crypto/depositSeed.js';
import { parseAmountPerAsset, type AmountPerAsset, type RefundPolicyConfig } from './refundPolicyConfig.js';

export type PaygateEnv = 'development' | 'staging' | 'production';

export interface Config {
  env: PaygateEnv;
  port: number;
  host: string;
  publicBaseUrl: string;
  /** `sqlite:<path>` or a `postgres://` URL. */
  databaseUrl: string;
  dataDir: string;
  /** Encryption keys by id; the first entry encrypts, all of them decrypt (so the key can be rotated). */
  encryptionKeys: { id: string; key: Buffer }[] | null;
  optionSecret: Buffer | null;
  /**
   * Option secrets retired by a rotation (PAYGATE_OPTION_SECRET_PREVIOUS): they still verify option ids and
   * data-collection links issued before it, and sign nothing (docs/decisions.md §29.15).
   */
  optionSecretsPrevious: Buffer[];
  /** `local` starts local chains; otherwise presets (`live`, `testnet`) and chain files, comma-separated. */
  chains: string;
  /** The PAYGATE_ variables, for the `${PAYGATE_…}` placeholders of chain files (server/src/chains/chainsSetting.ts). */
  chainEnv: Record<string, string>;
  webhookAllowLoopback: boolean;
  /** The addresses (IPs or CIDR ranges) webhook deliveries leave from, as published to merchants; empty: not published. */
  webhookSourceAddresses: string[];
  /** How long webhook attempts are kept, in milliseconds (PAYGATE_WEBHOOK_RETENTION_DAYS; webhooks/retention.ts). */
  webhookRetentionMs: number;
  screeningFile: string | null;
  /** A separate port for `/metrics`; null serves it on the API port. */
  metricsPort: number | null;
  metricsToken: string | null;
  rateLimit: { rps: number; burst: number };
  /**
   * How long a merchant key that authenticated is trusted without another database read (accounts/credentialCache.ts):
   * the longest a revocation by another process takes to reach this one. 0 reads every time.
   */
  credentialCacheTtlMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logFormat: 'json' | 'pretty';
  /** Express's `trust proxy`: false, true, a hop count, or the addresses (IPs, CIDRs, presets) of trusted proxies. */
  trustProxy: boolean | number | string[];
  requestTimeoutMs: number;
  /** How long after expiresAt a transfer mined in time can still be confirmed (docs/decisions.md §17). */
  lateConfirmGraceMs: number;
  shutdownTimeoutMs: number;
  /** Origins allowed to call the gateway from a browser: `*` or a list. */
  corsOrigins: '*' | string[];
  /** How long an option's quote that involves an exchange rate stays valid. */
  quoteTtlMs: number;
  /** A JSON file of prices over the built-in static table of test mode (server/src/quotes/staticRates.ts). */
  ratesFile: string | null;
  /** ISO 4217 code → amount in minor units from which a payment requires data collection; empty: none does. */
  collectDataThresholds: Map<string, bigint>;
  /** Dashboard sessions (server/src/users/sessions.ts): idle and absolute timeouts, and the password hash's cost. */
  /** Settlement (docs/decisions.md §22). */
  settlement: SettlementConfig;
  dashboard: {
    idleTimeoutMs: number;
    sessionTtlMs: number;
    /** log2 of scrypt's N for new password hashes (17 by default); below 15 only outside production, for tests. */
    passwordCostLog2: number;
  };
}

export interface SettlementConfig {
  /**
   * PAYGATE_DEPOSIT_SEED: the BIP-39 mnemonic every deposit, collection and (in development) treasury key derives
   * from. null: collected settlement is unavailable (development generates one into the data dir). A secret.
   */
  depositSeed: string | null;
  /** PAYGATE_TREASURY_ADDRESSES: CAIP-10 accounts, one per chain, where collected fees are paid; by CAIP-2. */
  treasury: Record<string, string>;
  /** How often payouts are made (PAYGATE_PAYOUT_INTERVAL_S). */
  payoutIntervalMs: number;
  /** PAYGATE_PAYOUT_MINIMUM: the least a payout moves, in whole units of its asset (a decimal string, e.g. `10`). */
  payoutMinimum: string;
  /** How often the ledger is reconciled with the chains (PAYGATE_RECONCILE_INTERVAL_S). */
  reconcileIntervalMs: number;
  /** Whether a reconciliation difference fails /readyz (PAYGATE_RECONCILE_READINESS). */
  reconcileReadiness: boolean;
  /** How often detection scans the chains for transfers to deposit addresses (PAYGATE_DEPOSIT_SCAN_INTERVAL_MS). */
  scanIntervalMs: number;
  /** The on-chain refund policy (PAYGATE_REFUND_*, settlement/refundPolicy.ts). */
  refunds: RefundPolicyConfig;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export { variables, type VariableSpec } from './configVariables.js';

/** Secrets may be given as a value or as a file (`NAME_FILE`), the Docker/Kubernetes convention. */
function readVar(env: Env, name: string, secret = false): string | undefined {
  const direct = env[name];
  const file = secret ? env[`${name}_FILE`] : undefined;
  if (direct !== undefined && direct !== '' && file) {
    throw new ConfigError(name, `and ${name}_FILE are both set; set only one`);
  }
  if (file) {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(
        `${name}_FILE`,
        `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): ${file}`,
      );
    }
  }
  return direct === '' ? undefined : direct;
}

function parseWith<T>(name: string, schema: z.ZodType<T>, raw: string | undefined): T {
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const shown = raw === undefined ? 'unset' : `"${raw}"`;
    throw new ConfigError(name, `${issue?.message ?? 'is invalid'} (got ${shown})`);
  }
  return result.data;
}

/** A decimal integer within bounds; Number() alone would take " ", "1e3" and "0x50". */
const intSchema = (min: number, max: number, message: string) =>
  z
    .string()
    .trim()
    .regex(/^[0-9]+$/, { message })
    .transform(Number)
    .pipe(z.number().min(min, { message }).max(max, { message }));

const portSchema = intSchema(0, 65535, 'must be an integer between 0 and 65535');

const boolSchema = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { message: 'must be true or false' }))
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const urlSchema = z
  .string()
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL')
  .transform((v) => v.replace(/\/+$/, ''));

function databaseUrlFrom(raw: string | undefined, dataDir: string): string {
  try {
    return parseDatabaseUrl(raw, dataDir);
  } catch (err) {
    throw new ConfigError('DATABASE_URL', (err as Error).message);
  }
}

function decodeKeyMaterial(text: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  return Buffer.from(text, 'base64');
}

export function parseEncryptionKeys(raw: string): { id: string; key: Buffer }[] {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError('PAYGATE_ENCRYPTION_KEY', 'is empty');
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : `k${i}`;
    const material = colon > 0 ? entry.slice(colon + 1) : entry;
    if (!/^[A-Za-z0-9_-]{1,16}$/.test(id)) {
      throw new ConfigError('PAYGATE_ENCRYPTION_KEY', `has an invalid key id "${id}" (1–16 of A-Z a-z 0-9 _ -)`);
    }
    if (seen.has(id)) throw new ConfigError('PAYGATE_ENCRYPTION_KEY', `repeats key id "${id}"`);
    seen.add(id);
    const key = decodeKeyMaterial(material);
    if (key.length !== 32) {
      throw new ConfigError(
        'PAYGATE_ENCRYPTION_KEY',
        `key "${id}" must be 32 bytes in base64 or hex (got ${key.length} bytes)`,
      );
    }
    return { id, key };
  });
}

function parseOptionSecret(raw: string, name = 'PAYGATE_OPTION_SECRET'): Buffer {
  const asBase64 = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : null;
  const key = asBase64 && asBase64.length >= 32 ? asBase64 : Buffer.from(raw, 'utf8');
  if (key.length < 32) throw new ConfigError(name, 'must be at least 32 bytes');
  return key;
}

/**
 * A list separated by commas or line breaks (a file may hold one secret per line): a retired secret given as text
 * with a comma or a line break in it must be given in base64 instead.
 */
function parsePreviousOptionSecrets(raw: string | undefined): Buffer[] {
  if (raw === undefined) return [];
  return raw
    .split(/[,\r\n]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => parseOptionSecret(entry, 'PAYGATE_OPTION_SECRET_PREVIOUS'));
}

const PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(entry: string): boolean {
  if (PROXY_PRESETS.includes(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^[0-9]{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** Why `true` is refused in production and warned about elsewhere (docs/decisions.md §22.15). */
export const TRUST_EVERY_HOP =
  '`true` trusts every hop: any client sets its own address with X-Forwarded-For, so the per-address limits ' +
  "(sign-in, claim links, rate limits) and the logged client IP are the client's to choose. Give the hop count of " +
  'the proxies in front of Paygate (e.g. 1) or their addresses (loopback, 10.0.0.0/8, …)';

function parseTrustProxy(raw: string | undefined, production: boolean): Config['trustProxy'] {
  if (raw === undefined) return false;
  const lower = raw.trim().toLowerCase();
  if (lower === 'false') return false;
  if (lower === 'true') {
    if (production)
      throw new ConfigError('PAYGATE_TRUST_PROXY', `cannot be true when PAYGATE_ENV=production: ${TRUST_EVERY_HOP}`);
    return true;
  }
  if (/^[0-9]+$/.test(lower)) return Number(lower);
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.find((e) => !isProxyAddress(e));
  if (entries.length === 0 || bad !== undefined) {
    throw new ConfigError(
      'PAYGATE_TRUST_PROXY',
      `must be false, true, a hop count or a comma list of IPs, CIDRs, loopback, linklocal, uniquelocal (got "${bad ?? raw}")`,
    );
  }
  return entries;
}

function parseCorsOrigins(raw: string | undefined): Config['corsOrigins'] {
  if (raw === undefined || raw.trim() === '*') return '*';
  const origins = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    // An origin is scheme://host[:port] exactly: a path or a trailing slash would never match a browser's Origin.
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(
        'PAYGATE_CORS_ORIGINS',
        `must be * or a comma list of origins like https://wallet.example (got "${origin}")`,
      );
    }
  }
  if (origins.length === 0) throw new ConfigError('PAYGATE_CORS_ORIGINS', 'names no origin');
  return origins;
}

/** 1000 USD and 1000 EUR: the FATF travel-rule threshold (docs/decisions.md §16). */
export const DEFAULT_COLLECT_DATA_THRESHOLDS = 'USD:100000,EUR:100000';

export function parseCollectDataThresholds(raw: string | undefined): Map<string, bigint> {
  const name = 'PAYGATE_COLLECT_DATA_THRESHOLDS';
  const text = (raw ?? DEFAULT_COLLECT_DATA_THRESHOLDS).trim();
  const thresholds = new Map<string, bigint>();
  if (text.toLowerCase() === 'none') return thresholds;
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new ConfigError(name, 'names no threshold (use none to disable them)');
  for (const entry of entries) {
    const match = /^([A-Za-z]{3}):([0-9]{1,30})$/.exec(entry);
    const currency = match?.[1]?.toUpperCase();
    if (!match || !currency || !currencyByCode(currency)) {
      throw new ConfigError(
        name,
        `must be none or a comma list of <ISO 4217 code>:<minor units>, e.g. USD:100000 (got "${entry}")`,
      );
    }
    if (thresholds.has(currency)) throw new ConfigError(name, `names ${currency} twice`);
    thresholds.set(currency, BigInt(match[2]!));
  }
  return thresholds;
}

const millisSchema = (min: number, fallback: number) =>
  intSchema(min, 2 ** 31 - 1, `must be an integer number of milliseconds ≥ ${min}`).default(fallback);

export interface HostFacts {
  /** Whether stdout is a terminal: pretty logs are the development default only there. */
  stdoutIsTTY?: boolean;
}

export function loadConfig(env: Env = process.env, facts: HostFacts = {}): Config {
  const paygateEnv = parseWith(
    'PAYGATE_ENV',
    z
      .enum(['development', 'staging', 'production'], { message: 'must be development, staging or production' })
      .default('development'),
    readVar(env, 'PAYGATE_ENV'),
  );
  const dev = paygateEnv === 'development';
  const production = paygateEnv === 'production';
  const port = parseWith('PORT', portSchema.default(3000), readVar(env, 'PORT'));
  const host = readVar(env, 'HOST') ?? (dev ? '127.0.0.1' : '0.0.0.0');
  const dataDir = resolve(readVar(env, 'PAYGATE_DATA_DIR') ?? './data');

  const publicRaw = readVar(env, 'PUBLIC_BASE_URL');
  if (publicRaw === undefined && !dev)
    throw new ConfigError('PUBLIC_BASE_URL', `is required when PAYGATE_ENV=${paygateEnv}`);
  const publicBaseUrl = parseWith('PUBLIC_BASE_URL', urlSchema, publicRaw ?? `http://localhost:${port}`);

  const encRaw = readVar(env, 'PAYGATE_ENCRYPTION_KEY', true);
  const optRaw = readVar(env, 'PAYGATE_OPTION_SECRET', true);
  if (!dev && encRaw === undefined)
    throw new ConfigError('PAYGATE_ENCRYPTION_KEY', `is required when PAYGATE_ENV=${paygateEnv}`);
  if (!dev && optRaw === undefined)
    throw new ConfigError('PAYGATE_OPTION_SECRET', `is required when PAYGATE_ENV=${paygateEnv}`);

  const chains = readVar(env, 'PAYGATE_CHAINS') ?? (dev ? 'local' : undefined);
  if (chains === undefined)
    throw new ConfigError('PAYGATE_CHAINS', `is required when PAYGATE_ENV=${paygateEnv} (a chain configuration file)`);
  // The local chains come with unauthenticated dev routes (a faucet): never in production.
  if (paygateEnv === 'production' && chains.split(',').some((c) => c.trim() === 'local'))
    throw new ConfigError(
      'PAYGATE_CHAINS',
      'cannot include `local` when PAYGATE_ENV=production (the local chains serve unauthenticated dev routes)',
    );

  const metricsPortRaw = readVar(env, 'METRICS_PORT');
  const metricsPort = metricsPortRaw === undefined ? null : parseWith('METRICS_PORT', portSchema, metricsPortRaw);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port)
    throw new ConfigError('METRICS_PORT', `must differ from PORT (both are ${port})`);
  const logFormat = parseWith(
    'LOG_FORMAT',
    z
      .enum(['json', 'pretty'], { message: 'must be json or pretty' })
      .default(dev && (facts.stdoutIsTTY ?? process.stdout.isTTY === true) ? 'pretty' : 'json'),
    readVar(env, 'LOG_FORMAT'),
  );
  // Pretty printing is slow and breaks log shippers, which expect one JSON document per line.
  if (logFormat === 'pretty' && !dev)
    throw new ConfigError('LOG_FORMAT', `may be pretty only when PAYGATE_ENV=development (not ${paygateEnv})`);
  const logLevel = parseWith(
    'LOG_LEVEL',
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        message: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
    readVar(env, 'LOG_LEVEL'),
  );

  return {
    env: paygateEnv,
    port,
    host,
    publicBaseUrl,
    databaseUrl: databaseUrlFrom(readVar(env, 'DATABASE_URL', true), dataDir),
    dataDir,
    // null means "generate and keep in the data dir", which only development allows (checked above).
    encryptionKeys: encRaw === undefined ? null : parseEncryptionKeys(encRaw),
    optionSecret: optRaw === undefined ? null : parseOptionSecret(optRaw),
    optionSecretsPrevious: parsePreviousOptionSecrets(readVar(env, 'PAYGATE_OPTION_SECRET_PREVIOUS', true)),
    chains,
    chainEnv: Object.fromEntries(
      Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('PAYGATE_') && e[1] !== undefined),
    ),
    webhookAllowLoopback: parseWith(
      'PAYGATE_WEBHOOK_ALLOW_LOOPBACK',
      boolSchema.default(dev),
      readVar(env, 'PAYGATE_WEBHOOK_ALLOW_LOOPBACK'),
    ),
    webhookSourceAddresses: parseSourceAddresses(readVar(env, 'PAYGATE_WEBHOOK_SOURCE_ADDRESSES')),
    // At least a week: longer than a delivery's retry schedule (≈ 28 h), so no attempt of a pending delivery goes.
    webhookRetentionMs:
      parseWith(
        'PAYGATE_WEBHOOK_RETENTION_DAYS',
        intSchema(7, 3650, 'must be an integer number of days between 7 and 3650').default(90),
        readVar(env, 'PAYGATE_WEBHOOK_RETENTION_DAYS'),
      ) * 86_400_000,
    screeningFile: readVar(env, 'PAYGATE_SCREENING_FILE') ?? null,
    metricsPort,
    metricsToken: readVar(env, 'METRICS_TOKEN', true) ?? null,
    rateLimit: {
      rps: parseWith(
        'PAYGATE_RATE_LIMIT_RPS',
        z.coerce.number({ message: 'must be a number' }).positive({ message: 'must be greater than 0' }).default(50),
        readVar(env, 'PAYGATE_RATE_LIMIT_RPS'),
      ),
      burst: parseWith(
        'PAYGATE_RATE_LIMIT_BURST',
        z.coerce
          .number({ message: 'must be an integer' })
          .int({ message: 'must be an integer' })
          .positive({ message: 'must be greater than 0' })
          .default(100),
        readVar(env, 'PAYGATE_RATE_LIMIT_BURST'),
      ),
    },
    credentialCacheTtlMs: parseWith(
      'PAYGATE_CREDENTIAL_CACHE_TTL_MS',
      intSchema(0, 60_000, 'must be an integer number of milliseconds between 0 and 60000').default(5000),
      readVar(env, 'PAYGATE_CREDENTIAL_CACHE_TTL_MS'),
    ),
    logLevel,
    logFormat,
    trustProxy: parseTrustProxy(readVar(env, 'PAYGATE_TRUST_PROXY'), production),
    requestTimeoutMs: parseWith(
      'PAYGATE_REQUEST_TIMEOUT_MS',
      millisSchema(1, 30_000),
      readVar(env, 'PAYGATE_REQUEST_TIMEOUT_MS'),
    ),
    lateConfirmGraceMs:
      parseWith(
        'PAYGATE_LATE_CONFIRM_GRACE_S',
        z.coerce.number().int({ message: 'must be an integer' }).min(0).max(3600).default(120),
        readVar(env, 'PAYGATE_LATE_CONFIRM_GRACE_S'),
      ) * 1000,
    shutdownTimeoutMs: parseWith(
      'PAYGATE_SHUTDOWN_TIMEOUT_MS',
      millisSchema(0, 25_000),
      readVar(env, 'PAYGATE_SHUTDOWN_TIMEOUT_MS'),
    ),
    corsOrigins: parseCorsOrigins(readVar(env, 'PAYGATE_CORS_ORIGINS')),
    quoteTtlMs:
      parseWith(
        'PAYGATE_QUOTE_TTL_S',
        intSchema(1, 3600, 'must be an integer number of seconds between 1 and 3600').default(300),
        readVar(env, 'PAYGATE_QUOTE_TTL_S'),
      ) * 1000,
    ratesFile: readVar(env, 'PAYGATE_RATES_FILE') ?? null,
    collectDataThresholds: parseCollectDataThresholds(readVar(env, 'PAYGATE_COLLECT_DATA_THRESHOLDS')),
    settlement: parseSettlement(env, dev),
    dashboard: {
      idleTimeoutMs:
        parseWith(
          'PAYGATE_DASHBOARD_IDLE_TIMEOUT',
          intSchema(60, 86_400, 'must be an integer number of seconds between 60 and 86400').default(1800),
          readVar(env, 'PAYGATE_DASHBOARD_IDLE_TIMEOUT'),
        ) * 1000,
      sessionTtlMs:
        parseWith(
          'PAYGATE_DASHBOARD_SESSION_TTL',
          intSchema(300, 30 * 86_400, 'must be an integer number of seconds between 300 and 2592000').default(43_200),
          readVar(env, 'PAYGATE_DASHBOARD_SESSION_TTL'),
        ) * 1000,
      passwordCostLog2: parseWith(
        'PAYGATE_PASSWORD_COST',
        intSchema(production ? 15 : 10, 20, `must be an integer between ${production ? 15 : 10} and 20`).default(17),
        readVar(env, 'PAYGATE_PASSWORD_COST'),
      ),
    },
  };
}

function parseSettlement(env: Env, dev: boolean): SettlementConfig {
  const seed = readVar(env, 'PAYGATE_DEPOSIT_SEED', true);
  if (seed !== undefined && !isValidMnemonic(seed))
    throw new ConfigError(
      'PAYGATE_DEPOSIT_SEED',
      'must be a BIP-39 mnemonic of 12 to 24 English words with a valid checksum (`paygate admin new-deposit-seed` makes one)',
    );
  const treasury: Record<string, string> = {};
  for (const entry of (readVar(env, 'PAYGATE_TREASURY_ADDRESSES') ?? '').split(',')) {
    const account = entry.trim();
    if (account === '') continue;
    const match = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/.exec(account);
    if (!match)
      throw new ConfigError(
        'PAYGATE_TREASURY_ADDRESSES',
        `must be a comma-separated list of CAIP-10 accounts, one per chain (not "${account}")`,
      );
    if (treasury[match[1]!] !== undefined)
      throw new ConfigError('PAYGATE_TREASURY_ADDRESSES', `names chain ${match[1]} twice`);
    treasury[match[1]!] = match[2]!;
  }
  const minimum = readVar(env, 'PAYGATE_PAYOUT_MINIMUM') ?? '0';
  if (!/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/.test(minimum))
    throw new ConfigError(
      'PAYGATE_PAYOUT_MINIMUM',
      `must be a non-negative decimal number of whole units (not "${minimum}")`,
    );
  return {
    depositSeed: seed === undefined ? null : normaliseMnemonic(seed),
    treasury,
    payoutIntervalMs:
      parseWith(
        'PAYGATE_PAYOUT_INTERVAL_S',
        // A minute in development: the local chain finalizes in about a minute (§22.16), so a collected payment on a quiet
        // `npm start` is paid out within minutes rather than at the next hour.
        intSchema(10, 30 * 86_400, 'must be an integer number of seconds between 10 and 2592000').default(
          dev ? 60 : 3600,
        ),
        readVar(env, 'PAYGATE_PAYOUT_INTERVAL_S'),
      ) * 1000,
    payoutMinimum: minimum,
    reconcileIntervalMs:
      parseWith(
        'PAYGATE_RECONCILE_INTERVAL_S',
        intSchema(10, 86_400, 'must be an integer number of seconds between 10 and 86400').default(300),
        readVar(env, 'PAYGATE_RECONCILE_INTERVAL_S'),
      ) * 1000,
    reconcileReadiness: parseWith(
      'PAYGATE_RECONCILE_READINESS',
      boolSchema.default(true),
      readVar(env, 'PAYGATE_RECONCILE_READINESS'),
    ),
    scanIntervalMs: parseWith(
      'PAYGATE_DEPOSIT_SCAN_INTERVAL_MS',
      intSchema(100, 600_000, 'must be an integer number of milliseconds between 100 and 600000').default(2000),
      readVar(env, 'PAYGATE_DEPOSIT_SCAN_INTERVAL_MS'),
    ),
    refunds: {
      minimum: amountPerAsset('PAYGATE_REFUND_MINIMUM', readVar(env, 'PAYGATE_REFUND_MINIMUM'), '1'),
      networkFee: amountPerAsset('PAYGATE_REFUND_NETWORK_FEE', readVar(env, 'PAYGATE_REFUND_NETWORK_FEE'), '0.1'),
      ownerAbove: amountPerAsset('PAYGATE_REFUND_OWNER_ABOVE', readVar(env, 'PAYGATE_REFUND_OWNER_ABOVE'), '100'),
      perPayment: parseWith(
        'PAYGATE_REFUND_LIMIT_PER_PAYMENT',
        intSchema(1, 1000, 'must be an integer between 1 and 1000').default(10),
        readVar(env, 'PAYGATE_REFUND_LIMIT_PER_PAYMENT'),
      ),
    },
  };
}

function amountPerAsset(name: string, raw: string | undefined, fallback: string): AmountPerAsset {
  const parsed = parseAmountPerAsset(raw ?? fallback, fallback);
  if (typeof parsed === 'string') throw new ConfigError(name, parsed);
  return parsed;
}

/**
 * `PAYGATE_WEBHOOK_SOURCE_ADDRESSES`: a comma-separated list of IP addresses or CIDR ranges (`203.0.113.10`,
 * `2001:db8::/64`), shown to merchants for their firewalls. Only published, never enforced: the operator knows
 * where the egress is (a NAT, a proxy), the server does not.
 */
export function parseSourceAddresses(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined)
      throw new ConfigError(
        'PAYGATE_WEBHOOK_SOURCE_ADDRESSES',
        `must be a comma-separated list of IP addresses or CIDR ranges (not "${entry}")`,
      );
  }
  return entries;
}

/**
 * Development needs no setup, so missing secrets are generated once and kept in the data dir (mode 0600); a
 * restart must reuse them or encrypted data and issued option ids would stop verifying. Other environments
 * never get here: loadConfig requires the secrets there.
 */
export function withDevelopmentSecrets(
  config: Config,
): Config & { encryptionKeys: { id: string; key: Buffer }[]; optionSecret: Buffer } {
  const seedNeeded = config.env === 'development' && config.settlement.depositSeed === null;
  if (config.encryptionKeys && config.optionSecret && !seedNeeded) {
    return config as Config & { encryptionKeys: { id: string; key: Buffer }[]; optionSecret: Buffer };
  }
  if (config.env !== 'development')
    throw new ConfigError('PAYGATE_ENCRYPTION_KEY', `is required when PAYGATE_ENV=${config.env}`);
  const file = resolve(config.dataDir, 'dev-secrets.json');
  let stored: { encryptionKey: string; optionSecret: string; depositSeed?: string };
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
    if (stored.depositSeed === undefined) {
      // A data dir from before collected settlement: its other secrets stay, the seed is added beside them.
      stored = { ...stored, depositSeed: newMnemonic() };
      writeFileSync(file, JSON.stringify(stored) + '\n', { mode: 0o600 });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    stored = {
      encryptionKey: randomBytes(32).toString('base64'),
      optionSecret: randomBytes(32).toString('base64'),
      depositSeed: newMnemonic(),
    };
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(stored) + '\n', { mode: 0o600, flag: 'wx' });
  }
  return {
    ...config,
    settlement: { ...config.settlement, depositSeed: config.settlement.depositSeed ?? stored.depositSeed! },
    encryptionKeys: config.encryptionKeys ?? [{ id: 'dev', key: Buffer.from(stored.encryptionKey, 'base64') }],
    optionSecret: config.optionSecret ?? Buffer.from(stored.optionSecret, 'base64'),
  };
}
