/**
 * Runs `paygate` commands in this process (`runCliInProcess`) or as the real bin in a child process (`runCli`,
 * `spawnCli`), with an environment built from scratch so that nothing from the developer's shell (a DATABASE_URL,
 * a PAYGATE_ENV) leaks into the test. A child costs seconds of CPU to load the server through tsx, so tests spawn
 * only to cover the bin's own wiring (process streams, environment, exit, signals).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Cli from '../../server/src/cli/run.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(repoRoot, 'server/bin/paygate.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PAYGATE_ENV: 'development',
    LOG_LEVEL: 'silent',
    // Dashboard password hashes at a test cost (scrypt N=2^10).
    PAYGATE_PASSWORD_COST: '10',
    ...env,
  };
}

/** `binPath`: the bin to run, `server/bin/paygate.js` unless a run brings its own build (cliBundle.ts). */
export function spawnCli(args: string[], env: Record<string, string>, binPath = bin): ChildProcess {
  return spawn(process.execPath, [binPath, ...args], {
    cwd: repoRoot,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The CLI through import(), never a static import: mocha require()s test files, so what they import statically is
 * a CommonJS copy of the server, while the CLI loads its commands with import(). Statically imported, the CLI's
 * UsageError and ApiError would be the other copy's classes, and every refusal would look like an unknown error.
 */
let cli: Promise<typeof Cli> | undefined;

/**
 * What the bin would print and exit with, from the same code called in this process. Commands that open one SQLite
 * file must run one after another here: a connection's busy wait blocks the one thread the other's commit needs.
 */
export async function runCliInProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { RUNNING, runCli: runCommand } = await (cli ??= import('../../server/src/cli/run.js'));
  let stdout = '';
  let stderr = '';
  const code = await runCommand(args, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: cliEnv(env),
  });
  if (code === RUNNING)
    throw new Error(`paygate ${args.join(' ')} serves until a signal ends its process: spawnCli it`);
  return { code, stdout, stderr };
}

/** Runs the bin to completion; a command that does not exit in time fails the test instead of hanging it. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`paygate ${args.join(' ')} did not exit within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one JSON document a `--json` command prints; fails with the command's stderr when there is none. */
export function parseJson<T = Record<string, unknown>>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
  const lines = result.stdout.split('\n').filter((l) => l !== '');
  if (lines.length !== 1) throw new Error(`expected one line of JSON, got:\n${result.stdout}`);
  return JSON.parse(lines[0]!) as T;
}

export interface KeyJson {
  id: string;
  kind: string;
  mode: string;
  prefix: string;
  partnerId: string | null;
  label: string | null;
  pinnedVersion: string;
  createdAt: string;
  revokedAt: string | null;
  key?: string;
}

export const BOOTSTRAP_FIELDS = [
  'partnerId',
  'merchantId',
  'merchantApiKey',
  'merchantApiKeyLive',
  'walletApiKey',
  'walletApiKeyLive',
  'appId',
  'appIdLive',
];

/** A failed command: nothing on stdout, exactly one `paygate: …` line on stderr. */
export function expectFailure(result: CliResult, exitCode: number, pattern: RegExp): void {
  assert.equal(result.code, exitCode, `exit code (stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.split('\n');
  assert.equal(lines.length, 2, `one line on stderr, got: ${result.stderr}`);
  assert.equal(lines[1], '');
  assert.match(lines[0]!, /^paygate: /);
  assert.match(lines[0]!, pattern);
}

export function expectBootstrapFormats(c: Record<string, string>): void {
  assert.deepEqual(Object.keys(c), [...BOOTSTRAP_FIELDS, 'dashboard']);
  const login = c.dashboard as unknown as { email: string; password: string | null };
  assert.equal(login.email, 'demo@paygate.local');
  assert.match(login.password ?? '(existing)', /^[0-9A-Za-z]{20}$|^\(existing\)$/);
  assert.match(c.partnerId!, /^ptn_[0-9A-Za-z]{16}$/);
  assert.match(c.merchantId!, /^mer_[0-9A-Za-z]{16}$/);
  assert.match(c.merchantApiKey!, /^sk_test_[0-9A-Za-z]{32}$/);
  assert.match(c.merchantApiKeyLive!, /^sk_live_[0-9A-Za-z]{32}$/);
  assert.match(c.walletApiKey!, /^wk_test_[0-9A-Za-z]{32}$/);
  assert.match(c.walletApiKeyLive!, /^wk_live_[0-9A-Za-z]{32}$/);
  assert.match(c.appId!, /^app_test_[0-9A-Za-z]{24}$/);
  assert.match(c.appIdLive!, /^app_live_[0-9A-Za-z]{24}$/);
}
