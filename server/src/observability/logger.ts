/**
 * The process logger: pino JSON lines on stdout, or pino-pretty in a development terminal. Redaction is the
 * second line of defence: nothing logs a secret or personal data on purpose (credentials go to the terminal with
 * process.stdout.write, never through here), and these paths censor what a log call or an error object might
 * carry by accident.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { build as PrettyBuild } from 'pino-pretty';
import type { Config } from '../config.js';

// Loaded only for pretty output, so every CLI command and production process skips its start-up cost.
const require = createRequire(import.meta.url);

/** Fields that hold credentials, signing material or buyer data, at whatever depth they turn up. */
const SENSITIVE_FIELDS = [
  // credentials and secrets
  'apiKey',
  'merchantApiKey',
  'merchantApiKeyLive',
  'walletApiKey',
  'walletApiKeyLive',
  'appId',
  'appIdLive',
  'key',
  'secret',
  'secrets',
  'token',
  'password',
  'authorization',
  'signature',
  'encryptionKeys',
  'optionSecret',
  'optionSecretsPrevious',
  'metricsToken',
  'databaseUrl',
  'connectionString',
  'secret_sealed',
  'previous_secret_sealed',
  'key_hash',
  // the dashboard's credentials and second factors
  'csrfToken',
  'totpCode',
  'recoveryCode',
  'recoveryCodes',
  'otpauthUri',
  'password_hash',
  'token_hash',
  // personal data the gateway collects from buyers, and request bodies that may carry it
  'collectedData',
  'collected_data',
  'fullName',
  'dob',
  'email',
  'phone',
  // what a merchant says about its buyer (docs/decisions.md §30.3), and the sealed forms of it
  'buyer',
  'buyer_sealed',
  'payload_sealed',
  'body',
  'rawBody',
];

/** Headers that authenticate or sign; matched in any `headers` object (requests, responses, errors). */
const SENSITIVE_HEADERS = [
  'api-key',
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-csrf-token',
  'webhook-signature',
];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const field of SENSITIVE_FIELDS) paths.push(field, `*.${field}`, `*.*.${field}`);
  for (const header of SENSITIVE_HEADERS) {
    const h = `headers["${header}"]`;
    paths.push(h, `*.${h}`, `*.*.${h}`);
  }
  return paths;
}

export const REDACTED = '[redacted]';

export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    redact: { paths: redactPaths(), censor: REDACTED },
  };
}

/** `destination` replaces stdout (tests capture the lines in memory). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: DestinationStream): Logger {
  const options = loggerOptions(config);
  if (destination) return pino(options, destination);
  if (config.logFormat === 'pretty') {
    const { build: prettyStream } = require('pino-pretty') as { build: typeof PrettyBuild };
    return pino(options, prettyStream({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return pino(options, batchedLines(1));
}

/** Destinations with lines not yet written, flushed synchronously if the process exits first. */
const unwritten = new Set<() => void>();
process.on('exit', () => {
  for (const drain of unwritten) drain();
});

/**
 * A pino destination that writes the lines logged in one turn of the event loop together, in one system call, once
 * the turn is over (docs/decisions.md §23.11): under load the lines of many requests leave in one write instead of
 * one each. pino's own asynchronous destination (sonic-boom) batches too, but appends each line to a string it then
 * measures, copying the whole batch for every line (≈ 8 KB allocated per request line, BENCHMARKS.md "Issue 18").
 * The write itself is synchronous (sonic-boom's, which retries a full pipe), so nothing is pending once it returns.
 */
export function batchedLines(fd: number): DestinationStream & { flushSync(): void } {
  const out = pino.destination({ dest: fd, sync: true });
  let lines: string[] = [];
  const drain = () => {
    unwritten.delete(drain);
    if (lines.length === 0) return;
    const chunk = lines.join('');
    lines = [];
    out.write(chunk);
  };
  return {
    write(line: string) {
      if (lines.push(line) === 1) {
        unwritten.add(drain);
        setImmediate(drain);
      }
    },
    flushSync: drain,
  };
}

/**
 * A child of `logger` that skips the redaction walk, for lines whose every field the caller builds from known,
 * non-sensitive values (the request line of http/requestContext.ts): with ~200 wildcard paths, redaction was the
 * largest cost of a request in the shipped server (BENCHMARKS.md, api). Anything else logs through `logger`.
 */
export function unredactedChild(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}
