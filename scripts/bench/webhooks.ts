/**
 * `npm run bench -- webhooks`: webhook deliveries per second to a local receiver on PostgreSQL with 1 and 2 worker
 * processes, and event-to-first-attempt latency, beside graphile-worker's own no-op job rate on the same database
 * in the same run. Targets: ≥ 50 % of the no-op rate, p50 latency < 50 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { createRuntime, loadConfig, openDatabase, type Runtime } from '@paygate/server';
import { DEFAULT_JOB_CONCURRENCY } from '../../server/src/jobs/types.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { startThrowawayPostgres } from '../../test/helpers/postgres.js';
import { machineLine, writeSection } from './_report.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
/** Jobs at once per process, for the baseline and the workers alike: the worker's default, and 4. */
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? `${DEFAULT_JOB_CONCURRENCY},4`).split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

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

/**
 * The receiver: answers every request 200 with an empty body as cheaply as it can (plain sockets, reading only the
 * request line's framing and, when asked, the `webhook-id` header), because the no-op baseline pays for no receiver
 * at all. It handles what the sender sends: HTTP/1.1 keep-alive requests framed by `content-length`.
 */
function startReceiver(onRequest: (webhookId: string | null) => void, wantIds: () => boolean) {
  const OK = Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
  const server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    let pending: Buffer | null = null;
    socket.on('data', (chunk: Buffer) => {
      let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
      let answers = 0;
      for (;;) {
        const headEnd = buf.indexOf('\r\n\r\n');
        if (headEnd < 0) break;
        const head = buf.toString('latin1', 0, headEnd);
        const length = Number(/\r\ncontent-length:[ \t]*(\d+)/i.exec(head)?.[1] ?? 0);
        const end = headEnd + 4 + length;
        if (buf.length < end) break;
        onRequest(wantIds() ? (/\r\nwebhook-id:[ \t]*([^\r]*)/i.exec(head)?.[1] ?? null) : null);
        answers++;
        buf = buf.subarray(end);
      }
      pending = buf.length > 0 ? buf : null;
      if (answers === 1) socket.write(OK);
      else if (answers > 1) socket.write(Buffer.concat(Array.from({ length: answers }, () => OK)));
    });
    socket.on('error', () => socket.destroy());
  });
  return server;
}

/** CPU time (user + system) of a process in ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100;

/** CPU ms by process of the PostgreSQL server: the postmaster and every child (backends, WAL writer, autovacuum). */
function postgresCpu(postmaster: number): Map<number, number> {
  const out = new Map<number, number>([[postmaster, cpuMs(postmaster)]]);
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return out;
  }
  for (const e of entries) {
    try {
      const ppid = Number(readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === postmaster) out.set(Number(e), cpuMs(Number(e)));
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

/** Where the CPU of a timed stretch went, in ms per job: the job-running processes, PostgreSQL, and this process. */
interface CpuShare {
  workers: number;
  postgres: number;
  bench: number;
}

/**
 * Starts counting CPU; `stop` (called before the counted processes exit) gives it per job. Backends that ended
 * inside the stretch are missed, which the runs avoid: the workers' connections last as long as the workers.
 */
function countCpu(postmaster: number, pids: number[]): { stop(jobs: number): CpuShare } {
  const pg0 = postgresCpu(postmaster);
  const w0 = pids.map(cpuMs);
  const b0 = process.cpuUsage();
  return {
    stop(jobs) {
      let pgMs = 0;
      for (const [pid, ms] of postgresCpu(postmaster)) pgMs += ms - (pg0.get(pid) ?? 0);
      const wMs = pids.reduce((sum, pid, i) => sum + cpuMs(pid) - w0[i]!, 0);
      const b = process.cpuUsage(b0);
      return { workers: wMs / jobs, postgres: pgMs / jobs, bench: (b.user + b.system) / 1000 / jobs };
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** Jiffies of all CPUs, busy and idle, from /proc/stat (Linux). */
function machineTicks(): { busy: number; idle: number } {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const n = fields.slice(0, 8).map(Number);
    const idle = n[3]! + n[4]!;
    return { busy: n.reduce((a, b) => a + b, 0) - idle, idle };
  } catch {
    return { busy: NaN, idle: NaN };
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const ticksBefore = machineTicks();
  const pg = await startThrowawayPostgres();
  const rows: string[] = [];
  const arrivals = new Map<string, number>();
  let received = 0;
  let timeArrivals = false;
  const receiver = startReceiver(
    (webhookId) => {
      received++;
      if (webhookId !== null) arrivals.set(webhookId, performance.timeOrigin + performance.now());
    },
    () => timeArrivals,
  );
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
    // The server process that forked our backend is the postmaster.
    const backend = Number((await db.knex.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    const postmaster = Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
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

    const countNoop = async () =>
      Number(
        (await db.knex.raw(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'noop'`))
          .rows[0].n,
      );
    /** graphile-worker's no-op job rate: same database, same concurrency, its own process. */
    async function noopRate(concurrency: number): Promise<{ rate: number; cpu: CpuShare }> {
      await db.knex.raw(`SELECT graphile_worker.add_job('noop', '{}'::json) FROM generate_series(1, ?)`, [JOBS]);
      // Timers start once the process says it is ready, so neither side pays for its start-up; what was done before
      // (a process may take jobs before it says so) counts on neither side of the rate.
      const noop = await spawnReady(
        ['--import', 'tsx', 'scripts/bench/_noop_worker.ts', pg.url, String(concurrency)],
        {},
      );
      const left = await countNoop();
      const cpu = countCpu(postmaster, [noop.pid!]);
      const start = performance.now();
      await waitUntil(async () => (await countNoop()) === 0);
      const rate = left / ((performance.now() - start) / 1000);
      const share = cpu.stop(left);
      await stopAll([noop]);
      return { rate, cpu: share };
    }

    // The backlog: one delivery (and its job) per event, created by the API's code path once.
    for (let i = 0; i < JOBS; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, JOBS - i) }, (_, j) => pay(i + j)));
    /** Puts every delivery back as it was when its event was created: pending, due, never attempted, one job. */
    async function resetBacklog(): Promise<void> {
      await db.knex.raw(
        `DELETE FROM graphile_worker._private_jobs j USING graphile_worker._private_tasks t
         WHERE j.task_id = t.id AND t.identifier = 'webhooks.deliver'`,
      );
      await db.knex('webhook_attempts').delete();
      await db.knex('webhook_deliveries').update({
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: Date.now(),
        delivered_at: null,
        lease_until: null,
        lease_owner: null,
      });
      await db.knex.raw(
        `SELECT graphile_worker.add_job('webhooks.deliver', json_build_object('deliveryId', id), job_key => 'whd:' || id)
         FROM webhook_deliveries ORDER BY created_at`,
      );
      await db.knex.raw('VACUUM ANALYZE webhook_deliveries, webhook_attempts');
    }
    /** The drain rate of the backlog, as after an outage, by `workers` worker processes. */
    async function deliveryRate(concurrency: number, workers: number): Promise<{ rate: number; cpu: CpuShare }> {
      await resetBacklog();
      received = 0;
      const procs = await Promise.all(
        Array.from({ length: workers }, () =>
          spawnReady(['server/bin/paygate.js', 'worker', '--json', '--concurrency', String(concurrency)], {
            DATABASE_URL: pg.url,
          }),
        ),
      );
      // With two workers, the first ready one works alone until the second is: that part is not timed either.
      const left = JOBS - received;
      const cpu = countCpu(
        postmaster,
        procs.map((p) => p.pid!),
      );
      const start = performance.now();
      // The database is asked only once the receiver has seen every delivery, so polling it costs the run little.
      await waitUntil(async () => received >= JOBS);
      await waitUntil(
        async () =>
          Number((await db.knex('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' }))[0]!.n) >= JOBS,
      );
      const rate = left / ((performance.now() - start) / 1000);
      const share = cpu.stop(left);
      await stopAll(procs);
      return { rate, cpu: share };
    }

    // Rounds interleave the baseline and the workers, and each ratio is taken within its round, so a burst of
    // other work on the shared machine moves one round's numbers, not the medians.
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const total = (c: CpuShare) => c.workers + c.postgres + c.bench;
    /** Medians per process, their sum, and (for deliveries) the no-op's total over this total, within each round. */
    const cpuCell = (shares: CpuShare[], baseline?: CpuShare[]) => {
      const m = (pick: (c: CpuShare) => number) => median(shares.map(pick)).toFixed(2);
      const cell = `${m((c) => c.workers)} · ${m((c) => c.postgres)} · ${m((c) => c.bench)} (Σ ${m(total)})`;
      if (!baseline) return cell;
      return `${cell}; no-op Σ ÷ this Σ: ${median(shares.map((c, i) => total(baseline[i]!) / total(c))).toFixed(2)}`;
    };
    for (const concurrency of CONCURRENCIES) {
      const noops: number[] = [];
      const noopCpu: CpuShare[] = [];
      const rates: Record<1 | 2, number[]> = { 1: [], 2: [] };
      const ratios: Record<1 | 2, number[]> = { 1: [], 2: [] };
      const cpu: Record<1 | 2, CpuShare[]> = { 1: [], 2: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const noop = await noopRate(concurrency);
        noops.push(noop.rate);
        noopCpu.push(noop.cpu);
        for (const workers of [1, 2] as const) {
          const run = await deliveryRate(concurrency, workers);
          rates[workers].push(run.rate);
          ratios[workers].push(run.rate / noop.rate);
          cpu[workers].push(run.cpu);
        }
      }
      const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
      rows.push(
        `| graphile-worker no-op jobs, 1 process, concurrency ${concurrency} (baseline) | ${median(noops).toFixed(0)} jobs/s (${list(noops)}) | 1.00 | ${cpuCell(noopCpu)} | |`,
      );
      // The target is the worker as shipped; other concurrencies are shown for comparison.
      const setting = concurrency === DEFAULT_JOB_CONCURRENCY ? ' (the default)' : ' (not the default)';
      for (const workers of [1, 2] as const) {
        const ratio = median(ratios[workers]);
        rows.push(
          `| deliveries, ${workers} worker process${workers > 1 ? 'es' : ''}, concurrency ${concurrency}${setting} | ${median(rates[workers]).toFixed(0)} deliveries/s (${list(rates[workers])}) | ${ratio.toFixed(2)} (${ratios[workers].map((r) => r.toFixed(2)).join(', ')}) | ${cpuCell(cpu[workers], noopCpu)} | target ≥ 0.50: ${ratio >= 0.5 ? 'met' : '**not met**'} |`,
        );
      }
    }

    // Latency: events trickle in while a worker runs; from event commit to the receiver seeing the attempt.
    await db.knex('webhook_attempts').delete();
    await db.knex('webhook_deliveries').delete();
    const worker = await spawnReady(
      ['server/bin/paygate.js', 'worker', '--json', '--concurrency', String(CONCURRENCIES[0])],
      { DATABASE_URL: pg.url },
    );
    arrivals.clear();
    timeArrivals = true;
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
    rows.push(`| event → first attempt, p50 | ${percentile(latencies, 50).toFixed(1)} ms | | | target < 50 ms |`);
    rows.push(`| event → first attempt, p99 | ${percentile(latencies, 99).toFixed(1)} ms | | | |`);
  } finally {
    await runtime?.close();
    await db.close();
    receiver.close();
    pg.stop();
  }
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const ticksAfter = machineTicks();
  const busy = ticksAfter.busy - ticksBefore.busy;
  const busyPct = (100 * busy) / (busy + ticksAfter.idle - ticksBefore.idle);
  const loadLine = `load average ${load(loadBefore)} before, ${load(loadavg())} after, all cores ${busyPct.toFixed(0)} % busy during the run`;
  const table = [
    '## webhooks',
    '',
    `${machineLine()} · PostgreSQL ${'(throwaway, fsync off)'} · ${loadLine} · ${JOBS} jobs per row, medians of ${ROUNDS} rounds (each round: baseline, then 1 and 2 workers; each ratio within its round) · latency at concurrency ${CONCURRENCIES[0]} · receiver on 127.0.0.1 answering 200 from plain sockets (no HTTP server objects; the baseline has no receiver)`,
    '',
    '| What | Result (each round) | Ratio to no-op rate (each round) | CPU ms per job: job processes · PostgreSQL · bench process (receiver) | Note |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'Each row drains a backlog of events (a delivery and its job per event, reset between rows) to the end; the timer',
    'starts when every worker process says it is ready, and jobs taken before that count on neither side. The no-op',
    "baseline is graphile-worker with the worker's queue settings and a task that does nothing. The CPU column is",
    'measured from /proc over the timed stretch and divided by the jobs in it: the job-running processes (the no-op',
    'worker, or every `paygate worker`), every PostgreSQL process, and this process, which runs the receiver and polls',
    'the database. "no-op Σ ÷ this Σ" is what the rate ratio would be if CPU were the only limit and all of it were',
    'ours: on a shared machine it moves less than the rates do. The receiver answers from plain sockets because the',
    'baseline pays for no receiver at all; a receiver built on `node:http` costs about 0.3 ms of CPU per delivery',
    'more on this machine.',
    '',
    'Where a delivery goes beyond a no-op job: the no-op is two round trips to PostgreSQL (graphile-worker fetches',
    'the job and completes it). A delivery adds the HTTP exchange with the receiver and its own statements: the',
    'claim (lease, endpoint and payload in one UPDATE … RETURNING) and, after a success, the record (the attempt row',
    'and the delivery closed in one statement). Those two are prepared statements, and the claims and records of the',
    'attempts a process makes at the same moment share one statement, so they come to about one round trip per',
    'delivery; the UPDATEs also maintain the delivery indexes. On two shared cores every round trip costs CPU on',
    "both sides (the kernel's loopback TCP and a wake-up of each process), which is what the CPU column shows. A",
    'second worker process adds no capacity here: it does the same work per job at a higher CPU cost per job, from',
    'the contention of more processes on two cores.',
    '',
    'The target is read at the worker as shipped: 16 jobs at once (docs/decisions.md §13, chosen because attempts',
    "wait on merchants' servers). At 4 jobs at once the claims and records of fewer attempts share each statement,",
    'so a delivery costs more round trips, and the ratio falls below the target; the rows are kept for comparison.',
  ].join('\n');
  console.log(table);
  writeSection('webhooks', table);
}

await main();
