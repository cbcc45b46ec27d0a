/**
 * The only reader of process.env. Every setting is validated at startup; a bad value stops the process with a
 * message that names the variable, because a server that starts half-configured fails later and less clearly.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';

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
  /** `local` starts local chains; anything else is a path to a chain configuration file. */
  chains: string;
  webhookAllowLoopback: boolean;
  screeningFile: string | null;
  metricsPort: number | null;
  metricsToken: string | null;
  rateLimit: { rps: number; burst: number };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
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

/** One documented variable: the README's table is checked against this list by a test. */
export interface VariableSpec {
  name: string;
  type: string;
  default: string;
  modes: string;
  secret?: boolean;
  description: string;
}

export const variables: VariableSpec[] = [
  {
    name: 'PAYGATE_ENV',
    type: '`development` \\| `staging` \\| `production`',
    default: '`development`',
    modes: 'all',
    description: 'Selects defaults. `staging` is the sandbox: it accepts test keys only.',
  },
  {
    name: 'PORT',
    type: 'integer 0–65535 (0: any free port)',
    default: '`3000`',
    modes: 'all',
    description: 'HTTP port of the API.',
  },
  {
    name: 'HOST',
    type: 'string',
    default: '`127.0.0.1` in development, `0.0.0.0` otherwise',
    modes: 'all',
    description: 'Interface the API listens on.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    type: 'http(s) URL',
    default: '`http://localhost:$PORT` in development; required otherwise',
    modes: 'all',
    description: 'Base of the `gatewayUrl` and data-collection URLs handed to buyers.',
  },
  {
    name: 'DATABASE_URL',
    type: '`postgres://…` or `sqlite:<path>`',
    default: '`sqlite:$PAYGATE_DATA_DIR/paygate.sqlite`',
    modes: 'all',
    description: 'PostgreSQL for production and scale; SQLite (embedded) otherwise.',
  },
  {
    name: 'PAYGATE_DATA_DIR',
    type: 'path',
    default: '`./data`',
    modes: 'all',
    description: 'Where the embedded database and development secrets live.',
  },
  {
    name: 'PAYGATE_ENCRYPTION_KEY',
    type: 'secret: `<id>:<base64 32 bytes>[,<id>:<base64>…]`',
    default: 'generated into the data dir in development; required otherwise',
    modes: 'all',
    secret: true,
    description: 'AES-256-GCM keys for webhook secrets and personal data at rest. The first key encrypts; all decrypt.',
  },
  {
    name: 'PAYGATE_OPTION_SECRET',
    type: 'secret: ≥ 32 bytes (base64 or text)',
    default: 'generated into the data dir in development; required otherwise',
    modes: 'all',
    secret: true,
    description: 'HMAC key that signs option ids.',
  },
  {
    name: 'PAYGATE_CHAINS',
    type: '`local` or a path',
    default: '`local` in development; required otherwise',
    modes: 'all',
    description: '`local` starts anvil and a LiteSVM-backed Solana RPC; otherwise a chain configuration file.',
  },
  {
    name: 'PAYGATE_WEBHOOK_ALLOW_LOOPBACK',
    type: 'boolean',
    default: '`true` in development, `false` otherwise',
    modes: 'test mode only',
    description: 'Allows `http://` webhook endpoints on 127.0.0.0/8, `localhost` and `[::1]` for test-mode endpoints.',
  },
  {
    name: 'PAYGATE_SCREENING_FILE',
    type: 'path',
    default: 'none',
    modes: 'all',
    description:
      'A file of screened accounts (one CAIP-10 or address per line); confirm refuses them with `sanctioned_user`.',
  },
  {
    name: 'PAYGATE_RATE_LIMIT_RPS',
    type: 'number > 0',
    default: '`50`',
    modes: 'all',
    description: 'Sustained requests per second per credential, per process.',
  },
  {
    name: 'PAYGATE_RATE_LIMIT_BURST',
    type: 'integer > 0',
    default: '`100`',
    modes: 'all',
    description: 'Burst size of the per-credential token bucket.',
  },
  {
    name: 'METRICS_PORT',
    type: 'integer 1–65535',
    default: 'none (served on `PORT`)',
    modes: 'all',
    description: 'Serve `/metrics` on a separate port.',
  },
  {
    name: 'METRICS_TOKEN',
    type: 'secret',
    default: 'none',
    modes: 'all',
    secret: true,
    description: 'When set, `/metrics` requires `Authorization: Bearer <token>`.',
  },
  {
    name: 'LOG_LEVEL',
    type: '`fatal`…`trace` \\| `silent`',
    default: '`info`',
    modes: 'all',
    description: 'pino log level.',
  },
];

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

const portSchema = z.coerce
  .number({ message: 'must be an integer between 0 and 65535' })
  .int({ message: 'must be an integer between 0 and 65535' })
  .min(0, { message: 'must be an integer between 0 and 65535' })
  .max(65535, { message: 'must be an integer between 0 and 65535' });

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

function parseDatabaseUrl(raw: string | undefined, dataDir: string): string {
  if (raw === undefined) return `sqlite:${resolve(dataDir, 'paygate.sqlite')}`;
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      const u = new URL(raw);
      if (!u.hostname && !u.searchParams.get('host')) throw new Error('no host');
      return raw;
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new ConfigError('DATABASE_URL', 'names no SQLite file (use sqlite:<path>)');
    return path === ':memory:' ? 'sqlite::memory:' : `sqlite:${resolve(path)}`;
  }
  throw new ConfigError(
    'DATABASE_URL',
    `must start with postgres://, postgresql:// or sqlite: (got "${raw.replace(/\/\/[^@]*@/, '//***@')}")`,
  );
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

function parseOptionSecret(raw: string): Buffer {
  const asBase64 = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : null;
  const key = asBase64 && asBase64.length >= 32 ? asBase64 : Buffer.from(raw, 'utf8');
  if (key.length < 32) throw new ConfigError('PAYGATE_OPTION_SECRET', 'must be at least 32 bytes');
  return key;
}

export function loadConfig(env: Env = process.env): Config {
  const paygateEnv = parseWith(
    'PAYGATE_ENV',
    z
      .enum(['development', 'staging', 'production'], { message: 'must be development, staging or production' })
      .default('development'),
    readVar(env, 'PAYGATE_ENV'),
  );
  const dev = paygateEnv === 'development';
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

  const metricsPortRaw = readVar(env, 'METRICS_PORT');
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
    databaseUrl: parseDatabaseUrl(readVar(env, 'DATABASE_URL'), dataDir),
    dataDir,
    // null means "generate and keep in the data dir", which only development allows (checked above).
    encryptionKeys: encRaw === undefined ? null : parseEncryptionKeys(encRaw),
    optionSecret: optRaw === undefined ? null : parseOptionSecret(optRaw),
    chains,
    webhookAllowLoopback: parseWith(
      'PAYGATE_WEBHOOK_ALLOW_LOOPBACK',
      boolSchema.default(dev),
      readVar(env, 'PAYGATE_WEBHOOK_ALLOW_LOOPBACK'),
    ),
    screeningFile: readVar(env, 'PAYGATE_SCREENING_FILE') ?? null,
    metricsPort: metricsPortRaw === undefined ? null : parseWith('METRICS_PORT', portSchema, metricsPortRaw),
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
    logLevel,
  };
}

/**
 * Development needs no setup, so missing secrets are generated once and kept in the data dir (mode 0600); a
 * restart must reuse them or encrypted data and issued option ids would stop verifying. Other environments
 * never get here: loadConfig requires the secrets there.
 */
export function withDevelopmentSecrets(
  config: Config,
): Config & { encryptionKeys: { id: string; key: Buffer }[]; optionSecret: Buffer } {
  if (config.encryptionKeys && config.optionSecret) {
    return config as Config & { encryptionKeys: { id: string; key: Buffer }[]; optionSecret: Buffer };
  }
  if (config.env !== 'development')
    throw new ConfigError('PAYGATE_ENCRYPTION_KEY', `is required when PAYGATE_ENV=${config.env}`);
  const file = resolve(config.dataDir, 'dev-secrets.json');
  let stored: { encryptionKey: string; optionSecret: string };
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    stored = { encryptionKey: randomBytes(32).toString('base64'), optionSecret: randomBytes(32).toString('base64') };
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(stored) + '\n', { mode: 0o600, flag: 'wx' });
  }
  return {
    ...config,
    encryptionKeys: config.encryptionKeys ?? [{ id: 'dev', key: Buffer.from(stored.encryptionKey, 'base64') }],
    optionSecret: config.optionSecret ?? Buffer.from(stored.optionSecret, 'base64'),
  };
}
