import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCli } from '../helpers/cli.js';

interface Started {
  child: ChildProcess;
  /** Our own stdout lines, in order (log lines are kept apart). */
  lines: Record<string, unknown>[];
  logs: string[];
  stdout: () => string;
  url: string;
}

/** A bound on a start, for a failing test only: a loaded machine can take seconds to load the server. */
const START_MS = 60_000;

/** Starts `paygate start --json` and resolves once it prints its URL, i.e. once it is listening. */
async function start(env: Record<string, string>): Promise<Started> {
  const child = spawnCli(['start', '--json'], env);
  let stdout = '';
  let stderr = '';
  const lines: Record<string, unknown>[] = [];
  const logs: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within ${START_MS} ms\n${stdout}\n${stderr}`));
    }, START_MS);
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      pending += d;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const doc = JSON.parse(line) as Record<string, unknown>;
        // pino writes to stdout too; its lines carry a numeric level.
        if (typeof doc.level === 'number') {
          logs.push(line);
          continue;
        }
        lines.push(doc);
        if (typeof doc.url === 'string') {
          clearTimeout(timer);
          resolve(doc.url);
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening\n${stdout}\n${stderr}`)));
  });
  return { child, lines, logs, stdout: () => stdout, url };
}

async function stop(started: Started): Promise<number | null> {
  const exited = once(started.child, 'exit') as Promise<[number | null]>;
  started.child.kill('SIGTERM');
  const [code] = await exited;
  return code;
}

describe('cli.start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-cli-start-'));
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'paygate.sqlite')}`,
    PAYGATE_DATA_DIR: dir,
    PORT: '0',
    // Logs on, so that a secret written through the logger would be seen.
    LOG_LEVEL: 'info',
  };
  let running: Started | null = null;
  afterEach(async () => {
    if (running && running.child.exitCode === null) await stop(running);
    running = null;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('on an empty development database prints test credentials first, then serves /healthz', async () => {
    running = await start(env);
    const [credentials, listening] = running.lines;
    assert.deepEqual(Object.keys(credentials!).sort(), [
      'appId',
      'dashboard',
      'merchantApiKey',
      'merchantId',
      'partnerId',
      'walletApiKey',
    ]);
    assert.match(String(credentials!.merchantApiKey), /^sk_test_[0-9A-Za-z]{32}$/);
    assert.match(String(credentials!.walletApiKey), /^wk_test_[0-9A-Za-z]{32}$/);
    assert.match(String(credentials!.appId), /^app_test_[0-9A-Za-z]{24}$/);
    assert.deepEqual(listening, { url: running.url, env: 'development' });

    const res = await fetch(`${running.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });

    // The demo login, printed once, signs in to the dashboard as owner of the demo merchant.
    const login = credentials!.dashboard as { email: string; password: string };
    assert.equal(login.email, 'demo@paygate.local');
    assert.match(login.password, /^[0-9A-Za-z]{20}$/);
    const signIn = await fetch(`${running.url}/v1/dashboard/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(login),
    });
    const body = (await signIn.json()) as {
      status: string;
      session: { memberships: { merchantId: string; role: string }[] };
    };
    assert.equal(signIn.status, 200);
    assert.deepEqual(
      body.session.memberships.map((m) => [m.merchantId, m.role]),
      [[credentials!.merchantId, 'owner']],
    );

    assert.equal(await stop(running), 0);
    assert.ok(!running.stdout().includes('_live_'), 'no live key is minted or printed');
    for (const log of running.logs) {
      for (const secret of [
        credentials!.merchantApiKey,
        credentials!.walletApiKey,
        credentials!.appId,
        (credentials!.dashboard as { password: string }).password,
      ]) {
        assert.ok(!log.includes(String(secret)), 'no credential goes through the logger');
      }
    }
    assert.ok(running.logs.length > 0, 'the logger was on');
  });

  it('a second start on the same database does not bootstrap again', async () => {
    running = await start(env);
    assert.deepEqual(running.lines, [{ url: running.url, env: 'development' }]);
    assert.equal((await fetch(`${running.url}/healthz`)).status, 200);
    assert.equal(await stop(running), 0);
    assert.ok(!/sk_test_|wk_test_|app_test_/.test(running.stdout()));
  });
});
