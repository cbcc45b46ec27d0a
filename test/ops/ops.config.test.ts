/**
 * Configuration: one module reads the environment, every setting has a development default, bad values stop the
 * process with one line naming the variable, and the README documents exactly the variables that exist.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ConfigError, loadConfig, variables } from '@paygate/server';
import { configTable, README, readmeTable } from '../../scripts/config-table.js';
import { closedPort } from '../helpers/jsonRpc.js';
import { repoRoot, runCli } from '../helpers/cli.js';

function expectConfigError(env: Record<string, string>, variable: string, pattern?: RegExp): void {
  assert.throws(
    () => loadConfig(env, { stdoutIsTTY: false }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError for ${JSON.stringify(env)}, got ${String(err)}`);
      assert.equal(err.variable, variable);
      assert.match(err.message, new RegExp(`^Invalid configuration: ${variable} `));
      if (pattern) assert.match(err.message, pattern);
      return true;
    },
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

const configSource = readFileSync(join(repoRoot, 'server/src/config.ts'), 'utf8');

describe('ops.config', () => {
  describe('the README', () => {
    it('holds the table scripts/config-table.ts generates from `variables`', () => {
      const readme = readFileSync(README, 'utf8');
      assert.equal(readmeTable(readme), configTable(), 'README.md is stale: run npm run config:table');
    });

    it('lists every variable, with its _FILE form for secrets', () => {
      const table = readmeTable(readFileSync(README, 'utf8'))!;
      for (const v of variables) {
        assert.ok(table.includes(`| \`${v.name}\``), v.name);
        if (v.secret) assert.ok(table.includes(`\`${v.name}_FILE\``), `${v.name}_FILE`);
      }
    });
  });

  describe('the reader', () => {
    it('config.ts is the only file under server/src that reads process.env (the bin only hands it to runCli)', () => {
      const readers = sourceFiles(join(repoRoot, 'server/src'))
        .filter((file) => /process\s*\.\s*env\b|process\s*\[\s*['"`]env['"`]\s*\]/.test(readFileSync(file, 'utf8')))
        .map((file) => relative(repoRoot, file));
      // cli.ts is the `paygate` bin: it passes its environment to runCli, whose commands read it through config.ts.
      assert.deepEqual(readers, ['server/src/cli.ts', 'server/src/config.ts']);
      assert.match(
        readFileSync(join(repoRoot, 'server/src/cli.ts'), 'utf8'),
        /await runCli\(.*env: process\.env \}\);/,
      );
    });

    it('reads exactly the documented variables', () => {
      const read = new Set([...configSource.matchAll(/readVar\(\s*env,\s*'([A-Z0-9_]+)'/g)].map((m) => m[1]!));
      const documented = new Set(variables.map((v) => v.name));
      assert.deepEqual([...read].sort(), [...documented].sort());
      for (const v of variables.filter((x) => x.secret)) {
        assert.match(configSource, new RegExp(`readVar\\(env, '${v.name}', true\\)`), `${v.name} accepts _FILE`);
      }
    });
  });

  describe('the defaults', () => {
    it('need nothing set for the embedded start', () => {
      const config = loadConfig({}, { stdoutIsTTY: false });
      assert.equal(config.env, 'development');
      assert.match(config.databaseUrl, /^sqlite:/);
      assert.equal(config.trustProxy, false);
      assert.equal(config.requestTimeoutMs, 30_000);
      assert.equal(config.shutdownTimeoutMs, 25_000);
      assert.equal(config.corsOrigins, '*');
      assert.equal(config.metricsPort, null);
      assert.equal(config.metricsToken, null);
      assert.equal(config.logLevel, 'info');
      assert.equal(config.logFormat, 'json');
    });

    it('print pretty logs only in a development terminal', () => {
      assert.equal(loadConfig({}, { stdoutIsTTY: true }).logFormat, 'pretty');
      assert.equal(loadConfig({ LOG_FORMAT: 'json' }, { stdoutIsTTY: true }).logFormat, 'json');
      const production = {
        PAYGATE_ENV: 'production',
        PUBLIC_BASE_URL: 'https://pay.example.com',
        PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        PAYGATE_OPTION_SECRET: Buffer.alloc(32, 2).toString('base64'),
        PAYGATE_CHAINS: '/etc/paygate/chains.json',
      };
      assert.equal(loadConfig(production, { stdoutIsTTY: true }).logFormat, 'json');
      expectConfigError({ ...production, LOG_FORMAT: 'pretty' }, 'LOG_FORMAT', /only when PAYGATE_ENV=development/);
    });

    it('keep the request timeout above the longest long-poll (maxPollMs ≤ 25000)', () => {
      assert.ok(loadConfig({}, { stdoutIsTTY: false }).requestTimeoutMs > 25_000);
    });
  });

  describe('the values', () => {
    it('parse every form of PAYGATE_TRUST_PROXY', () => {
      const trust = (v: string) => loadConfig({ PAYGATE_TRUST_PROXY: v }, { stdoutIsTTY: false }).trustProxy;
      assert.equal(trust('false'), false);
      assert.equal(trust('TRUE'), true);
      assert.equal(trust('2'), 2);
      assert.deepEqual(trust('loopback, 10.0.0.0/8,fd00::/8 ,192.0.2.1'), [
        'loopback',
        '10.0.0.0/8',
        'fd00::/8',
        '192.0.2.1',
      ]);
    });

    it('refuse PAYGATE_TRUST_PROXY=true in production (every hop trusted: X-Forwarded-For spoofs the per-address limits); a hop count or addresses start', () => {
      const production = {
        PAYGATE_ENV: 'production',
        PUBLIC_BASE_URL: 'https://pay.example.com',
        PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        PAYGATE_OPTION_SECRET: Buffer.alloc(32, 2).toString('base64'),
        PAYGATE_CHAINS: '/etc/paygate/chains.json',
      };
      expectConfigError(
        { ...production, PAYGATE_TRUST_PROXY: 'true' },
        'PAYGATE_TRUST_PROXY',
        /cannot be true when PAYGATE_ENV=production.*X-Forwarded-For.*hop count.*addresses/,
      );
      const trust = (v: string) => loadConfig({ ...production, PAYGATE_TRUST_PROXY: v }).trustProxy;
      assert.equal(trust('1'), 1);
      assert.deepEqual(trust('10.0.0.0/8'), ['10.0.0.0/8']);
      assert.equal(trust('false'), false);
      // Outside production it is accepted, and the runtime warns at start (ops.http.hardening).
      assert.equal(loadConfig({ PAYGATE_ENV: 'development', PAYGATE_TRUST_PROXY: 'true' }).trustProxy, true);
    });

    it('parse the credential cache TTL: 5 s by default, 0 turns it off, at most a minute', () => {
      assert.equal(loadConfig({}, { stdoutIsTTY: false }).credentialCacheTtlMs, 5000);
      assert.equal(loadConfig({ PAYGATE_CREDENTIAL_CACHE_TTL_MS: '0' }).credentialCacheTtlMs, 0);
      assert.equal(loadConfig({ PAYGATE_CREDENTIAL_CACHE_TTL_MS: '60000' }).credentialCacheTtlMs, 60_000);
      expectConfigError({ PAYGATE_CREDENTIAL_CACHE_TTL_MS: '60001' }, 'PAYGATE_CREDENTIAL_CACHE_TTL_MS', /0 and 60000/);
      expectConfigError({ PAYGATE_CREDENTIAL_CACHE_TTL_MS: '-1' }, 'PAYGATE_CREDENTIAL_CACHE_TTL_MS');
    });

    it('parse a list of CORS origins', () => {
      const config = loadConfig({ PAYGATE_CORS_ORIGINS: 'https://a.example, http://localhost:5173' });
      assert.deepEqual(config.corsOrigins, ['https://a.example', 'http://localhost:5173']);
    });

    it('name the variable and the problem of a bad value', () => {
      expectConfigError({ PORT: ' ' }, 'PORT');
      expectConfigError({ PORT: '1e3' }, 'PORT', /integer between 0 and 65535/);
      expectConfigError({ PAYGATE_TRUST_PROXY: 'maybe' }, 'PAYGATE_TRUST_PROXY', /got "maybe"/);
      expectConfigError({ PAYGATE_TRUST_PROXY: '10.0.0.0/33' }, 'PAYGATE_TRUST_PROXY', /10\.0\.0\.0\/33/);
      expectConfigError({ PAYGATE_REQUEST_TIMEOUT_MS: '0' }, 'PAYGATE_REQUEST_TIMEOUT_MS', /≥ 1/);
      expectConfigError({ PAYGATE_REQUEST_TIMEOUT_MS: 'soon' }, 'PAYGATE_REQUEST_TIMEOUT_MS');
      expectConfigError({ PAYGATE_REQUEST_TIMEOUT_MS: '1.5' }, 'PAYGATE_REQUEST_TIMEOUT_MS');
      expectConfigError({ PAYGATE_SHUTDOWN_TIMEOUT_MS: '-1' }, 'PAYGATE_SHUTDOWN_TIMEOUT_MS');
      expectConfigError({ PAYGATE_CORS_ORIGINS: 'https://wallet.example/' }, 'PAYGATE_CORS_ORIGINS', /origins/);
      expectConfigError({ PAYGATE_CORS_ORIGINS: 'wallet.example' }, 'PAYGATE_CORS_ORIGINS');
      expectConfigError({ LOG_FORMAT: 'xml' }, 'LOG_FORMAT', /json or pretty/);
      expectConfigError({ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT', /differ from PORT/);
      expectConfigError({ METRICS_PORT: '65536' }, 'METRICS_PORT');
    });

    it('read secrets from files: DATABASE_URL_FILE, METRICS_TOKEN_FILE', () => {
      const dir = mkdtempSync(join(tmpdir(), 'paygate-config-'));
      writeFileSync(join(dir, 'db'), 'postgres://paygate:s3cret@db.internal:5432/paygate\n');
      writeFileSync(join(dir, 'token'), 'scrape-token\n');
      const config = loadConfig({ DATABASE_URL_FILE: join(dir, 'db'), METRICS_TOKEN_FILE: join(dir, 'token') });
      assert.equal(config.databaseUrl, 'postgres://paygate:s3cret@db.internal:5432/paygate');
      assert.equal(config.metricsToken, 'scrape-token');
      expectConfigError({ DATABASE_URL_FILE: join(dir, 'missing') }, 'DATABASE_URL_FILE', /ENOENT/);
    });
  });

  describe('paygate start', () => {
    const expectOneLine = (result: { code: number | null; stderr: string }, pattern: RegExp) => {
      assert.equal(result.code, 1, result.stderr);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, pattern);
      assert.doesNotMatch(result.stderr, /\s+at /, 'no stack trace');
    };

    it('exits 1 with one line naming the variable for a bad new setting', async () => {
      const result = await runCli(['start'], { PAYGATE_SHUTDOWN_TIMEOUT_MS: 'later' });
      expectOneLine(result, /^paygate: Invalid configuration: PAYGATE_SHUTDOWN_TIMEOUT_MS /);
    });

    it('exits 1 with one line naming DATABASE_URL, without its password, when the database is unreachable', async () => {
      const url = `postgres://paygate:hunter2@127.0.0.1:${await closedPort()}/paygate`;
      const result = await runCli(['start'], { DATABASE_URL: url });
      expectOneLine(result, /^paygate: Cannot use the database DATABASE_URL names \(postgres:\/\/paygate:\*\*\*@127/);
      assert.match(result.stderr, /ECONNREFUSED/);
      assert.doesNotMatch(result.stderr, /hunter2/);
    });
  });
});
