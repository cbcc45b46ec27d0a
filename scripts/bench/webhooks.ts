/**
 * `npm run bench -- webhooks`: webhook deliveries per second to a local receiver on PostgreSQL with 1 and 2 worker
 * processes, and event-to-first-attempt latency, beside graphile-worker's own no-op job rate on the same database
 * in the same run. Targets: ≥ 50 % of the no-op rate, p50 latency < 50 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { createRuntime, loadConfig, openDatabase, type Runtime } from '@paygate/server';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { startThrowawayPostgres } from '../../test/helpers/postgres.js';
import { machineLine, writeSection } from './_report.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

const env = {
  PAYGATE_ENV: 'development',
  LOG_LEVEL: 'silent',
  PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
  PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
};

function spawnReady(args: string[], extraEnv: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (c) => {
      c.kill('SIGTERM');
      await once(c, 'exit');
    }),
  );
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
  const pg = await startThrowawayPostgres();
  const rows: string[] = [];
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    arrivals.set(String(req.headers['webhook-id']), performance.timeOrigin + performance.now());
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const db = openDatabase(pg.url, { poolMax: 4 });
  let runtime: Runtime | null = null;
  try {
    runtime = await createRuntime({
      config: loadConfig({ ...env, DATABASE_URL: pg.url }),
      db,
      logger: pino({ level: 'silent' }),
    });
    await db.knex('partners').insert({ id: 'ptn_bench', name: 'Bench', created_at: 0 });
    await db
      .knex('merchants')
      .insert({ id: 'mer_bench', partner_id: 'ptn_bench', name: 'Bench', settlement_addresses: '{}', created_at: 0 });
    await createEndpoint(runtime, 'mer_bench', 'test', { url: receiverUrl });
    const rt = runtime;
    const pay = (i: number) =>
      createPayment(rt, {
        merchantId: 'mer_bench',
        live: false,
        referenceId: `bench-${i}`,
        amount: { unit: 'iso4217/USD', value: '1250' },
        expiresAt: Date.now() + 86_400_000,
        successUrl: null,
        errorUrl: null,
      });

    // Baseline: graphile-worker's no-op job rate, same database, same concurrency, its own process.
    await db.knex.raw(`SELECT graphile_worker.add_job('noop', '{}'::json) FROM generate_series(1, ?)`, [JOBS]);
    // Timers start once the process says it is ready, so neither side pays for its start-up.
    const noop = await spawnReady(
      ['--import', 'tsx', 'scripts/bench/_noop_worker.ts', pg.url, String(CONCURRENCY)],
      {},
    );
    const noopStart = performance.now();
    await waitUntil(
      async () =>
        Number(
          (await db.knex.raw(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'noop'`))
            .rows[0].n,
        ) === 0,
    );
    const noopRate = JOBS / ((performance.now() - noopStart) / 1000);
    await stopAll([noop]);
    rows.push(`| graphile-worker no-op jobs, 1 process (baseline) | ${noopRate.toFixed(0)} jobs/s | 1.00 | |`);

    for (const workers of [1, 2]) {
      await db.knex('webhook_attempts').delete();
      await db.knex('webhook_deliveries').delete();
      // Events first, workers after: the rate is the drain rate of a backlog, as after an outage.
      for (let i = 0; i < JOBS; i += 50)
        await Promise.all(Array.from({ length: Math.min(50, JOBS - i) }, (_, j) => pay(i + j)));
      const procs = await Promise.all(
        Array.from({ length: workers }, () =>
          spawnReady(['server/bin/paygate.js', 'worker', '--json', '--concurrency', String(CONCURRENCY)], {
            DATABASE_URL: pg.url,
          }),
        ),
      );
      const start = performance.now();
      await waitUntil(
        async () =>
          Number((await db.knex('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' }))[0]!.n) >= JOBS,
      );
      const rate = JOBS / ((performance.now() - start) / 1000);
      await stopAll(procs);
      rows.push(
        `| deliveries, ${workers} worker process${workers > 1 ? 'es' : ''} | ${rate.toFixed(0)} deliveries/s | ${(rate / noopRate).toFixed(2)} | target ≥ 0.50 |`,
      );
    }

    // Latency: events trickle in while a worker runs; from event commit to the receiver seeing the attempt.
    await db.knex('webhook_attempts').delete();
    await db.knex('webhook_deliveries').delete();
    const worker = await spawnReady(
      ['server/bin/paygate.js', 'worker', '--json', '--concurrency', String(CONCURRENCY)],
      { DATABASE_URL: pg.url },
    );
    arrivals.clear();
    const created = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const p = await pay(100_000 + i);
      const ev = (await db.knex('events').select('id').where({ payment_id: p.id }).first()) as { id: string };
      created.set(ev.id, performance.timeOrigin + performance.now());
      await new Promise((r) => setTimeout(r, 10));
    }
    await waitUntil(async () => [...created.keys()].every((id) => arrivals.has(id)));
    await stopAll([worker]);
    const latencies = [...created].map(([id, t]) => arrivals.get(id)! - t);
    rows.push(`| event → first attempt, p50 | ${percentile(latencies, 50).toFixed(1)} ms | | target < 50 ms |`);
    rows.push(`| event → first attempt, p99 | ${percentile(latencies, 99).toFixed(1)} ms | | |`);
  } finally {
    await runtime?.close();
    await db.close();
    receiver.close();
    pg.stop();
  }
  const table = [
    '## webhooks',
    '',
    `${machineLine()} · PostgreSQL ${'(throwaway, fsync off)'} · ${JOBS} jobs per row · concurrency ${CONCURRENCY} per process · receiver on 127.0.0.1 answering 200`,
    '',
    '| What | Result | Ratio to no-op rate | Note |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(table);
  writeSection('webhooks', table);
}

await main();
