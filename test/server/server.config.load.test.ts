import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, withDevelopmentSecrets } from '@paygate/server';

const key32 = Buffer.alloc(32, 7).toString('base64');

function expectConfigError(env: Record<string, string>, variable: string, pattern?: RegExp): void {
  assert.throws(
    () => loadConfig(env),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
      assert.equal(err.variable, variable);
      assert.match(err.message, new RegExp(`^Invalid configuration: ${variable} `));
      if (pattern) assert.match(err.message, pattern);
      return true;
    },
  );
}

describe('server.config.load', () => {
  it('defaults to the embedded development start', () => {
    const config = loadConfig({});
    assert.equal(config.env, 'development');
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicBaseUrl, 'http://localhost:3000');
    assert.match(config.databaseUrl, /^sqlite:.*\/data\/paygate\.sqlite$/);
    assert.equal(config.chains, 'local');
    assert.equal(config.webhookAllowLoopback, true);
    assert.equal(config.encryptionKeys, null);
    assert.deepEqual(config.rateLimit, { rps: 50, burst: 100 });
  });

  it('turns loopback webhooks off outside development', () => {
    const config = loadConfig({
      PAYGATE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://pay.example.com/',
      PAYGATE_ENCRYPTION_KEY: key32,
      PAYGATE_OPTION_SECRET: key32,
      PAYGATE_CHAINS: '/etc/paygate/chains.json',
      DATABASE_URL: 'postgres://u:p@db.internal:5432/paygate',
    });
    assert.equal(config.webhookAllowLoopback, false);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.publicBaseUrl, 'https://pay.example.com');
    assert.equal(config.databaseUrl, 'postgres://u:p@db.internal:5432/paygate');
  });

  it('names the variable of a bad value', () => {
    expectConfigError({ PORT: 'eighty' }, 'PORT', /between 0 and 65535 \(got "eighty"\)/);
    expectConfigError({ PORT: '70000' }, 'PORT');
    expectConfigError({ PAYGATE_ENV: 'prod' }, 'PAYGATE_ENV', /development, staging or production/);
    expectConfigError({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL');
    expectConfigError({ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL');
    expectConfigError({ PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'maybe' }, 'PAYGATE_WEBHOOK_ALLOW_LOOPBACK');
    expectConfigError({ PAYGATE_RATE_LIMIT_RPS: '-1' }, 'PAYGATE_RATE_LIMIT_RPS');
    expectConfigError({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
    expectConfigError({ PAYGATE_ENCRYPTION_KEY: 'k1:c2hvcnQ=' }, 'PAYGATE_ENCRYPTION_KEY', /32 bytes/);
    expectConfigError({ PAYGATE_OPTION_SECRET: 'short' }, 'PAYGATE_OPTION_SECRET');
  });

  it('requires secrets and chains outside development', () => {
    const base = { PAYGATE_ENV: 'staging', PUBLIC_BASE_URL: 'https://sandbox.example.com' };
    expectConfigError(base, 'PAYGATE_ENCRYPTION_KEY', /required when PAYGATE_ENV=staging/);
    expectConfigError({ ...base, PAYGATE_ENCRYPTION_KEY: key32 }, 'PAYGATE_OPTION_SECRET');
    expectConfigError({ ...base, PAYGATE_ENCRYPTION_KEY: key32, PAYGATE_OPTION_SECRET: key32 }, 'PAYGATE_CHAINS');
    expectConfigError({ PAYGATE_ENV: 'production' }, 'PUBLIC_BASE_URL');
    expectConfigError(
      {
        PAYGATE_ENV: 'production',
        PUBLIC_BASE_URL: 'https://pay.example.com',
        PAYGATE_ENCRYPTION_KEY: key32,
        PAYGATE_OPTION_SECRET: key32,
        PAYGATE_CHAINS: 'live,local',
      },
      'PAYGATE_CHAINS',
      /cannot include `local`/,
    );
  });

  it('reads a secret from a file and refuses both forms at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-config-'));
    const file = join(dir, 'enc');
    writeFileSync(file, `main:${key32}\n`);
    const config = loadConfig({ PAYGATE_ENCRYPTION_KEY_FILE: file });
    assert.equal(config.encryptionKeys?.[0]?.id, 'main');
    assert.deepEqual(config.encryptionKeys?.[0]?.key, Buffer.alloc(32, 7));
    expectConfigError(
      { PAYGATE_ENCRYPTION_KEY_FILE: file, PAYGATE_ENCRYPTION_KEY: key32 },
      'PAYGATE_ENCRYPTION_KEY',
      /both set/,
    );
    expectConfigError({ PAYGATE_OPTION_SECRET_FILE: join(dir, 'missing') }, 'PAYGATE_OPTION_SECRET_FILE', /ENOENT/);
  });

  it('keeps every encryption key for decryption, first one active', () => {
    const other = Buffer.alloc(32, 9).toString('hex');
    const config = loadConfig({ PAYGATE_ENCRYPTION_KEY: `new:${key32},old:${other}` });
    assert.deepEqual(
      config.encryptionKeys?.map((k) => k.id),
      ['new', 'old'],
    );
    expectConfigError({ PAYGATE_ENCRYPTION_KEY: `a:${key32},a:${key32}` }, 'PAYGATE_ENCRYPTION_KEY', /repeats/);
  });
});

describe('config.developmentSecrets', () => {
  it('generates development secrets once and reuses them after a restart', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-data-'));
    const first = withDevelopmentSecrets(loadConfig({ PAYGATE_DATA_DIR: dataDir }));
    const second = withDevelopmentSecrets(loadConfig({ PAYGATE_DATA_DIR: dataDir }));
    assert.equal(first.encryptionKeys[0]!.key.length, 32);
    assert.equal(first.optionSecret.length, 32);
    assert.deepEqual(second.encryptionKeys, first.encryptionKeys);
    assert.deepEqual(second.optionSecret, first.optionSecret);
    const other = withDevelopmentSecrets(
      loadConfig({ PAYGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'paygate-data-')) }),
    );
    assert.notDeepEqual(other.optionSecret, first.optionSecret);
  });
});

describe('cli.start', () => {
  const bin = join(process.cwd(), 'server/bin/paygate.js');

  for (const [variable, value] of [
    ['PORT', 'not-a-port'],
    ['DATABASE_URL', 'mysql://nope'],
  ] as const) {
    it(`exits non-zero with one clear line for an invalid ${variable}`, () => {
      const run = spawnSync(process.execPath, [bin, 'start'], {
        env: { PATH: process.env.PATH, [variable]: value, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.status, 1);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, new RegExp(`^paygate: Invalid configuration: ${variable} `));
      assert.ok(!run.stderr.includes('    at '), 'no stack trace');
    });
  }
});
