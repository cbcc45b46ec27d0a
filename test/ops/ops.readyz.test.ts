/** GET /healthz answers while the process is up; GET /readyz only while its database, schema and chains answer. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, createRuntime, openDatabase, runReadiness, type Database, type Runtime } from '@paygate/server';
import { testConfig } from '../helpers/config.js';
import { listen, type Listening } from '../helpers/http.js';
import { closedPort, jsonRpcCall, startJsonRpcServer, type JsonRpcServer } from '../helpers/jsonRpc.js';
import { captureLogs } from '../helpers/logs.js';

interface ReadyBody {
  status: string;
  checks: Record<string, { status: string; ms: number }>;
}

async function readyz(server: Listening): Promise<{ status: number; body: ReadyBody }> {
  const res = await fetch(`${server.url}/readyz`);
  assert.equal(res.headers.get('Cache-Control'), 'no-store');
  return { status: res.status, body: (await res.json()) as ReadyBody };
}

const statuses = (body: ReadyBody) => Object.fromEntries(Object.entries(body.checks).map(([k, v]) => [k, v.status]));

describe('ops.readyz', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-readyz-'));
  let n = 0;
  const running: { runtime: Runtime; server: Listening; db: Database }[] = [];

  /** A server over its own SQLite file (or the given database), optionally without migrating it. */
  async function start(options: { db?: Database; migrate?: boolean } = {}) {
    const db = options.db ?? openDatabase(`sqlite:${join(dir, `db${++n}.sqlite`)}`);
    const logs = captureLogs('info');
    const runtime = await createRuntime({ config: testConfig(), db, migrate: options.migrate, logger: logs.logger });
    const server = await listen(createApp({ runtime }));
    running.push({ runtime, server, db });
    return { runtime, server, db, logs };
  }

  afterEach(async () => {
    for (const { runtime, server, db } of running.splice(0)) {
      await server.close();
      await runtime.close();
      await db.close();
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 200 with every check ok, and /healthz answers', async () => {
    const { server } = await start();
    const { status, body } = await readyz(server);
    assert.equal(status, 200);
    assert.equal(body.status, 'ready');
    assert.deepEqual(statuses(body), { database: 'ok', migrations: 'ok' });
    assert.equal(typeof body.checks.database!.ms, 'number');
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });

  it('answers 503 when the database is closed, while /healthz still answers', async () => {
    const { server, db, logs } = await start();
    await db.close();
    const { status, body } = await readyz(server);
    assert.equal(status, 503);
    assert.equal(body.status, 'not_ready');
    assert.equal(body.checks.database!.status, 'failing');
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.ok(
      logs.lines().some((l) => l.msg === 'readiness check failing' && l.check === 'database'),
      'the reason is logged, not answered',
    );
  });

  it('answers 503 when the database is unreachable', async () => {
    const db = openDatabase(`postgres://postgres@127.0.0.1:${await closedPort()}/paygate`, {
      poolMax: 1,
      logger: captureLogs('info').logger,
    });
    const { server } = await start({ db, migrate: false });
    const { status, body } = await readyz(server);
    assert.equal(status, 503);
    assert.deepEqual(statuses(body), { database: 'failing', migrations: 'failing' });
    assert.doesNotMatch(JSON.stringify(body), /ECONNREFUSED|127\.0\.0\.1/, 'no internal detail in the answer');
  });

  it('answers 503 while a migration is pending', async () => {
    const { server } = await start({ migrate: false });
    const { status, body } = await readyz(server);
    assert.equal(status, 503);
    assert.deepEqual(statuses(body), { database: 'ok', migrations: 'failing' });
  });

  describe('with a chain check registered', () => {
    let rpc: JsonRpcServer;
    before(async () => {
      rpc = await startJsonRpcServer();
    });
    after(() => rpc.close());

    const chainCheck = (url: string) => ({
      name: 'chain:eip155:31337',
      async check(signal: AbortSignal) {
        const id = await jsonRpcCall(url, 'eth_chainId', signal);
        if (id !== '0x7a69') throw new Error(`wrong chain ${String(id)}`);
      },
    });

    it('answers 200 while the chain answers', async () => {
      const { runtime, server } = await start();
      runtime.readiness.push(chainCheck(rpc.url));
      const { status, body } = await readyz(server);
      assert.equal(status, 200);
      assert.deepEqual(statuses(body), { database: 'ok', migrations: 'ok', 'chain:eip155:31337': 'ok' });
      assert.ok(rpc.calls.includes('eth_chainId'));
    });

    it('answers 200 "degraded" naming the chain when its RPC is down: the process serves the others', async () => {
      const { runtime, server } = await start();
      runtime.readiness.push({ ...chainCheck(`http://127.0.0.1:${await closedPort()}`), degradable: true });
      const { status, body } = await readyz(server);
      assert.equal(status, 200);
      assert.equal(body.status, 'degraded');
      assert.deepEqual(statuses(body), { database: 'ok', migrations: 'ok', 'chain:eip155:31337': 'degraded' });
    });

    it('answers 503 when a check that cannot degrade fails', async () => {
      const { runtime, server } = await start();
      runtime.readiness.push(chainCheck(`http://127.0.0.1:${await closedPort()}`));
      const { status, body } = await readyz(server);
      assert.equal(status, 503);
      assert.equal(body.status, 'not_ready');
      assert.deepEqual(statuses(body), { database: 'ok', migrations: 'ok', 'chain:eip155:31337': 'failing' });
    });

    it('gives up on a check that does not answer in time, and aborts it', async () => {
      rpc.hang = true;
      try {
        let aborted = false;
        const check = chainCheck(rpc.url);
        const started = performance.now();
        const readiness = await runReadiness(
          [
            {
              name: check.name,
              check: (signal) => {
                signal.addEventListener('abort', () => (aborted = true));
                return check.check(signal);
              },
            },
          ],
          captureLogs('info').logger,
          150,
        );
        assert.equal(readiness.ready, false);
        assert.equal(readiness.checks[check.name]!.status, 'failing');
        assert.ok(performance.now() - started < 1000);
        assert.ok(aborted, 'the check’s request is aborted');
      } finally {
        rpc.hang = false;
      }
    });
  });
});
