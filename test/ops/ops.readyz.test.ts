/** GET /healthz answers while the process is up; GET /readyz only while its database, schema and chains answer. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, createRuntime, openDatabase, runReadiness, type Database, type Runtime } from '@paygate/server';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { sharedChains, sharedLocalChain } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { expectContractResponse } from '../helpers/contractResponses.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { listen, type Listening } from '../helpers/http.js';
import { closedPort, jsonRpcCall, startJsonRpcServer, type JsonRpcServer } from '../helpers/jsonRpc.js';
import { captureLogs } from '../helpers/logs.js';
import { eventually } from '../helpers/wait.js';

interface ReadyBody {
  status: string;
  checks: Record<string, { status: string; ms: number }>;
}

/** GET /readyz, its answer checked against the ops contract (openapi/ops, decisions.md §27.29). */
async function readyz(server: Listening): Promise<{ status: number; body: ReadyBody }> {
  const res = await fetch(`${server.url}/readyz`);
  assert.equal(res.headers.get('Cache-Control'), 'no-store');
  return { status: res.status, body: (await expectContractResponse('ops', '/readyz', res)) as unknown as ReadyBody };
}

const statuses = (body: ReadyBody) => Object.fromEntries(Object.entries(body.checks).map(([k, v]) => [k, v.status]));

describe('ops.readyz', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-readyz-'));
  let n = 0;
  const running: { runtime: Runtime; server: Listening; db: Database }[] = [];

  /**
   * A server over its own SQLite file (or the given database), optionally without migrating it, with the given
   * chains; its answers are validated against the contracts (the ops contract's included).
   */
  async function start(options: { db?: Database; migrate?: boolean; chains?: Chains } = {}) {
    const db = options.db ?? openDatabase(`sqlite:${join(dir, `db${++n}.sqlite`)}`);
    const logs = captureLogs('info');
    const runtime = await createRuntime({
      config: testConfig(),
      db,
      migrate: options.migrate,
      logger: logs.logger,
      ...(options.chains ? { chains: options.chains } : {}),
    });
    const server = await listen(createApp({ runtime, validateResponses: true }));
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
    assert.deepEqual(await expectContractResponse('ops', '/healthz', health), { status: 'ok' });
  });

  it('answers 503 when the database is closed, while /healthz still answers', async () => {
    const { server, db, logs } = await start();
    await db.close();
    const { status, body } = await readyz(server);
    assert.equal(status, 503);
    assert.equal(body.status, 'not_ready');
    assert.equal(body.checks.database!.status, 'failing');
    const health = await fetch(`${server.url}/healthz`);
    assert.deepEqual(await expectContractResponse('ops', '/healthz', health), { status: 'ok' });
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

  it('fails an answer off the ops contract in the test configuration: a check named outside the contract', async () => {
    const { runtime, server } = await start();
    runtime.readiness.push({ name: 'Chain Check', check: async () => {} });
    const res = await fetch(`${server.url}/readyz`);
    const body = (await res.json()) as { code?: string };
    assert.equal(res.status, 500, `the response validator refuses ${JSON.stringify(body)}`);
    assert.equal(body.code, 'internal_error');
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

  describe('with the run\u2019s chains, the EVM one behind the fault proxy', () => {
    let proxy: FaultProxy;
    let chains: Chains;
    before(async () => {
      const shared = await sharedChains();
      proxy = await startFaultProxy((await sharedLocalChain()).config.rpcUrl);
      const evm = shared.evm.map((c) => {
        const config = { ...c.config, rpcEndpoints: [{ url: proxy.url, timeoutMs: 1_000, weight: 1 }] };
        // A short breaker, so the healed endpoint's half-open probe comes within the test's wait.
        const clients = createEvmClients(config, {
          pollingIntervalMs: 50,
          pool: { breakerOpenMs: 200, backoffMs: 20 },
        });
        return { ...c, config, clients };
      });
      chains = { ...shared, evm };
    });
    after(() => proxy.close());

    it('answers 200 "ready", then 200 "degraded" naming the chain whose every endpoint fails, then "ready" again', async () => {
      const { server } = await start({ chains });
      const evm = `chain:${chains.evm[0]!.config.caip2}`;
      const solana = `chain:${chains.solana[0]!.config.caip2}`;
      const healthy = await readyz(server);
      assert.equal(healthy.status, 200);
      assert.equal(healthy.body.status, 'ready');
      const ok = statuses(healthy.body);
      assert.deepEqual({ ...ok, [evm]: 'ok', [solana]: 'ok', database: 'ok', migrations: 'ok' }, ok, 'every check ok');

      proxy.inject('*', { kind: 'serverError', status: 503 });
      const down = await readyz(server);
      assert.equal(down.status, 200, 'the process stays in rotation');
      assert.equal(down.body.status, 'degraded');
      assert.deepEqual(statuses(down.body), { ...ok, [evm]: 'degraded' }, 'only the chain is degraded');
      assert.ok(
        proxy.calls.some((c) => c.fault === 'serverError'),
        'the check went through the failing proxy',
      );

      proxy.heal();
      const back = await eventually('the chain ready again, without a restart', async () => {
        const answer = await readyz(server);
        return answer.body.status === 'ready' && answer;
      });
      assert.equal(back.status, 200);
      assert.equal(back.body.checks[evm]!.status, 'ok');
    });
  });
});
