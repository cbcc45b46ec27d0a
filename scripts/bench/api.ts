/**
 * `npm run bench -- api`: rps and p99 of the merchant API's create (with and without an `Idempotency-Key`) and
 * status, served by `paygate start` on SQLite and on PostgreSQL, beside a bare Express JSON route measured in the
 * same run. Targets: keyed create ≥ 0.30, unkeyed create ≥ 0.40 and status ≥ 0.60 of the bare route's rps.
 *
 * The server is the shipped one, started as a production install starts it: compiled by the server's build and run
 * as `paygate start` in its own process, configured by its environment only (development with the local chains, its
 * production middleware, metrics and background jobs), its account made by `paygate admin bootstrap`, logging JSON
 * lines at `info` into a file as a log shipper would read them. The bare route runs in a process of its own too;
 * autocannon runs here. Each row also reports the serving process's CPU time per request (from /proc), steadier than
 * req/s on a shared machine.
 *
 * The machine is shared, so a neighbour's load comes and goes within a run: each row alternates short slices of the
 * bare route and of the Paygate operation (after a warm-up of each), and its ratio is the Paygate requests over the
 * bare requests served in those slices, so both sides see the same load.
 *
 * Environment: BENCH_SECONDS (per row and side, default 10); BENCH_SLICES (default 5); BENCH_DATABASES
 * (sqlite,postgres); BENCH_ROWS (keyed,create,status); BENCH_WARMUP (seconds, default 5); BENCH_WRITE=0 prints
 * without rewriting BENCHMARKS.md;
 * BENCH_SERVER=source runs the sources through tsx (as `npm start` in a checkout) instead of the compiled server;
 * BENCH_CPU_PROF=DIR writes the Paygate servers' CPU profiles (`node --cpu-prof`) to DIR; BENCH_HEAP_PROF=DIR writes,
 * for each row, the Paygate server's allocations during the row (V8's sampling heap profiler through the inspector,
 * collected objects included) to DIR, for Chrome DevTools; BENCH_LOG_LEVEL (default info); BENCH_NODE_OPTIONS (node
 * flags for `paygate start`, none by default; e.g. `--max-semi-space-size=64`, the README's option for a busy server).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/helpers/postgres.js';
import { eventually } from '../../test/helpers/wait.js';
import { machineLine, writeSection } from './_report.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
/**
 * Load on each side before its row is measured (BENCH_WARMUP, seconds). A long-running server is warm; after 1 s the
 * first row's server still spent 1025, 841, 700, 614 and 690 µs of CPU per keyed create in its five slices (its JIT
 * and its database's statement caches warming), so a 1 s warm-up measured the first row of each database colder than
 * the rows after it (BENCHMARKS.md, "Issue 18").
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 5);
const CONNECTIONS = 20;
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
/** Which rows to measure (keyed,create,status); all by default. One row alone gives a profile of one operation. */
const ROWS = (process.env.BENCH_ROWS ?? 'keyed,create,status').split(',');
const CPU_PROF = process.env.BENCH_CPU_PROF;
const HEAP_PROF = process.env.BENCH_HEAP_PROF;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
/** Node flags for `paygate start` (docs/decisions.md §23.8); node's defaults unless asked, as users run it. */
const NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS ?? '';
/**
 * The server as a production install runs it: compiled by the server's build (`tsc -p server/tsconfig.build.json`),
 * here into server/.bench-dist, beside server/dist, so that it finds the contracts, docs and web pages as the built
 * `paygate` does, without leaving a build behind that `paygate` would then run instead of the sources.
 * BENCH_SERVER=source runs the sources through tsx, as `npm start` in a checkout does.
 */
const FROM_SOURCE = process.env.BENCH_SERVER === 'source';
const BUILT = resolve('server/.bench-dist');
const BIN = FROM_SOURCE ? resolve('server/bin/paygate.js') : join(BUILT, 'cli.js');

function buildServer(): void {
  rmSync(BUILT, { recursive: true, force: true });
  const tsc = resolve('node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'server/tsconfig.build.json', '--outDir', BUILT], { stdio: 'inherit' });
  cpSync('server/src/chains/presets', join(BUILT, 'chains/presets'), { recursive: true });
}

interface Started {
  child: ChildProcess;
  url: string;
  /** The server's inspector, when BENCH_HEAP_PROF asked for it. */
  inspector?: string;
}

async function startBare(): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/_bare.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

/** What a user sets: the rate limit out of reach of one busy key, logs as JSON lines at LOG_LEVEL, NODE_OPTIONS if any. */
function paygateEnv(databaseUrl: string, dataDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PAYGATE_ENV: 'development',
    PAYGATE_CHAINS: 'local',
    DATABASE_URL: databaseUrl,
    PAYGATE_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL,
    LOG_FORMAT: 'json',
    PAYGATE_RATE_LIMIT_RPS: '1000000',
    PAYGATE_RATE_LIMIT_BURST: '1000000',
    ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
  };
}

/** `paygate admin bootstrap --json`: the demo partner, merchant and keys, as a user makes them before starting. */
async function bootstrap(env: NodeJS.ProcessEnv): Promise<{ merchantId: string; merchantApiKey: string }> {
  const child = spawn(process.execPath, [BIN, 'admin', 'bootstrap', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`paygate admin bootstrap exited ${code}`);
  return JSON.parse(out.trim()) as { merchantId: string; merchantApiKey: string };
}

/** `paygate start --json`, its stdout (the ready line, then the log) in a file. */
async function startPaygate(env: NodeJS.ProcessEnv, dataDir: string): Promise<Started> {
  const logFile = join(dataDir, 'paygate.log');
  const fd = openSync(logFile, 'w');
  const child = spawn(
    process.execPath,
    [
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
      ...(HEAP_PROF ? ['--inspect=127.0.0.1:0'] : []),
      BIN,
      'start',
      '--json',
    ],
    { env, stdio: ['ignore', fd, HEAP_PROF ? 'pipe' : 'inherit'] },
  );
  closeSync(fd);
  let inspector: string | undefined;
  if (HEAP_PROF) {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      inspector ??= /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
      process.stderr.write(line + '\n');
    });
  }
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const url = await eventually(
    'paygate start to print its url',
    () => {
      if (exited !== undefined) throw new Error(`paygate start exited ${exited}`);
      for (const line of readFileSync(logFile, 'utf8').split('\n')) {
        if (!line.startsWith('{"url"')) continue;
        return (JSON.parse(line) as { url: string }).url;
      }
      return undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  return { child, url, inspector };
}

/**
 * Samples the server's allocations while `during` runs, collected objects included (what the young generation's
 * collections are spent on), and writes them to HEAP_PROF/name.heapprofile.
 */
async function heapProfiled<T>(server: Started, name: string, during: () => Promise<T>): Promise<T> {
  if (!HEAP_PROF || !server.inspector) return during();
  const socket = new WebSocket(server.inspector);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let id = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const sent = ++id;
      const onMessage = (data: Buffer) => {
        const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
        if (message.id !== sent) return;
        socket.off('message', onMessage);
        resolve(message.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id: sent, method, params }));
    });
  await call('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  try {
    return await during();
  } finally {
    const { profile } = (await call('HeapProfiler.stopSampling')) as { profile: unknown };
    mkdirSync(HEAP_PROF, { recursive: true });
    writeFileSync(join(HEAP_PROF, `${name}.heapprofile`), JSON.stringify(profile));
    socket.close();
  }
}

/** SIGINT: the server shuts down gracefully (and a profiled one writes its profile on the way out). */
async function stopServer(server: Started): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGINT');
  await exited;
}

interface Measured {
  rps: number;
  p99: number;
  errors: number;
  /** CPU time of the serving process per request, in µs (its own process only: not PostgreSQL's). */
  cpuUs: number;
}

/** CPU time a process has used, in µs (user + system, from /proc at the kernel's clock-tick resolution). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

interface Slice {
  requests: number;
  p99: number;
  errors: number;
  cpu: number;
}

async function load(opts: autocannon.Options, seconds: number, pid: number): Promise<Slice> {
  const before = cpuOf(pid);
  const result = await autocannon({ connections: CONNECTIONS, duration: seconds, ...opts });
  return {
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
    cpu: cpuOf(pid) - before,
  };
}

type Side = [options: autocannon.Options, server: Started];

/** Alternating slices of the two loads, after a warm-up of each; p99 is the median of the slices'. */
async function interleaved(bare: Side, paygate: Side): Promise<[Measured, Measured]> {
  const run = ([options, server]: Side, seconds: number) => load(options, seconds, server.child.pid!);
  await run(bare, WARMUP_SECONDS);
  await run(paygate, WARMUP_SECONDS);
  const slice = DURATION / SLICES;
  const sides: Slice[][] = [[], []];
  for (let i = 0; i < SLICES; i++) {
    sides[0]!.push(await run(bare, slice));
    sides[1]!.push(await run(paygate, slice));
  }
  const total = (side: Slice[]): Measured => {
    const p99s = side.map((m) => m.p99).sort((a, b) => a - b);
    const requests = side.reduce((n, m) => n + m.requests, 0);
    return {
      rps: requests / (slice * side.length),
      p99: p99s[Math.floor(p99s.length / 2)]!,
      errors: side.reduce((n, m) => n + m.errors, 0),
      cpuUs: side.reduce((n, m) => n + m.cpu, 0) / requests,
    };
  };
  return [total(sides[0]!), total(sides[1]!)];
}

let counter = 0;
const createBody = () =>
  JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: `order-${++counter}` });

const loadLine = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function row(what: string, m: Measured, bare: Measured | null, target?: number): string {
  const ratio = bare ? m.rps / bare.rps : 1;
  const verdict =
    target === undefined ? '' : ` (target ≥ ${target.toFixed(2)}: ${ratio >= target ? 'met' : 'NOT met'})`;
  const errors = m.errors ? `, ${m.errors} errors` : '';
  return `| ${what} | ${m.rps.toFixed(0)} | ${m.p99} ms | ${m.cpuUs.toFixed(0)} µs | ${ratio.toFixed(2)}${verdict}${errors} |`;
}

async function main(): Promise<void> {
  if (!FROM_SOURCE) buildServer();
  const loadBefore = loadLine();
  const pg: ThrowawayPostgres | null = DATABASES.includes('postgres') ? await startThrowawayPostgres() : null;
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const rows: string[] = [];
  const bare = await startBare();
  try {
    const bareCreate: autocannon.Options = {
      url: `${bare.url}/bare`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: createBody(),
    };
    const bareStatus: autocannon.Options = { url: `${bare.url}/bare` };

    const databases = [
      ['sqlite', 'SQLite', (dataDir: string) => `sqlite:${join(dataDir, 'paygate.sqlite')}`],
      ['postgres', 'PostgreSQL', () => pg?.url ?? ''],
    ] as const;
    for (const [id, name, databaseUrl] of databases) {
      if (!DATABASES.includes(id)) continue;
      const dataDir = mkdtempSync(join(dir, `${id}-`));
      const env = paygateEnv(databaseUrl(dataDir), dataDir);
      const account = await bootstrap(env);
      const server = await startPaygate(env, dataDir);
      try {
        const headers = {
          'content-type': 'application/json',
          'api-key': account.merchantApiKey,
          'merchant-id': account.merchantId,
        };
        const created = await fetch(`${server.url}/v1/merchant/payment`, {
          method: 'POST',
          headers,
          body: createBody(),
        });
        if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
        const { paymentId } = (await created.json()) as { paymentId: string };

        // What @paygate/sdk-merchant sends: a new Idempotency-Key with every create.
        if (ROWS.includes('keyed')) {
          const [baseKeyed, keyed] = await heapProfiled(server, `${id}-keyed`, () =>
            interleaved(
              [bareCreate, bare],
              [
                {
                  url: `${server.url}/v1/merchant/payment`,
                  method: 'POST',
                  headers,
                  requests: [
                    {
                      setupRequest: (req) => ({
                        ...req,
                        headers: { ...req.headers, 'idempotency-key': `bench-${counter + 1}` },
                        body: createBody(),
                      }),
                    },
                  ],
                },
                server,
              ],
            ),
          );
          rows.push(row(`bare Express route (POST, baseline), beside the ${name} keyed create row`, baseKeyed, null));
          rows.push(row(`create payment with an Idempotency-Key, ${name}`, keyed, baseKeyed, 0.3));
        }
        if (ROWS.includes('create')) {
          const [basePost, create] = await heapProfiled(server, `${id}-create`, () =>
            interleaved(
              [bareCreate, bare],
              [
                {
                  url: `${server.url}/v1/merchant/payment`,
                  method: 'POST',
                  headers,
                  requests: [{ setupRequest: (req) => ({ ...req, body: createBody() }) }],
                },
                server,
              ],
            ),
          );
          rows.push(row(`bare Express route (POST, baseline), beside the ${name} create row`, basePost, null));
          rows.push(row(`create payment, ${name}`, create, basePost, 0.4));
        }
        if (ROWS.includes('status')) {
          const [baseGet, status] = await heapProfiled(server, `${id}-status`, () =>
            interleaved(
              [bareStatus, bare],
              [{ url: `${server.url}/v1/merchant/payment/${paymentId}/status`, headers }, server],
            ),
          );
          rows.push(row(`bare Express route (GET, baseline), beside the ${name} status row`, baseGet, null));
          rows.push(row(`payment status, ${name}`, status, baseGet, 0.6));
        }
      } finally {
        await stopServer(server);
      }
    }
  } finally {
    await stopServer(bare);
    pg?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (!FROM_SOURCE) rmSync(BUILT, { recursive: true, force: true });
  }
  const table = [
    `## api`,
    '',
    `${machineLine()} · load average ${loadBefore} before, ${loadLine()} after · autocannon, ${CONNECTIONS} connections, ${DURATION} s per row and side in ${SLICES} alternating slices after a ${WARMUP_SECONDS} s warm-up of each; \`paygate start\` and the bare route each in its own process; a ratio is the row's requests over the bare route's in the slices beside it`,
    '',
    '| What | req/s | p99 | server CPU per request | ratio to bare route |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'The server: `paygate admin bootstrap --json`, then `paygate start --json` (' +
      (FROM_SOURCE
        ? 'the bin, from the sources through tsx as in a checkout of the repository'
        : "compiled by the server's build, as a production install runs it") +
      '), configured by its environment only: `PAYGATE_ENV=development`, ' +
      '`PAYGATE_CHAINS=local` (anvil and the local Solana chain started by the server), background jobs, metrics and ' +
      `every middleware on, ${NODE_OPTIONS ? `\`NODE_OPTIONS=${NODE_OPTIONS}\`` : "node's default flags"}, ` +
      `\`LOG_LEVEL=${LOG_LEVEL}\` with \`LOG_FORMAT=json\` (one line per request, into a file, ` +
      'as a log shipper would read them), and the rate limit out of reach (`PAYGATE_RATE_LIMIT_RPS` and ' +
      '`PAYGATE_RATE_LIMIT_BURST` at 1000000). PostgreSQL is a throwaway one with fsync off, on the same two cores. ' +
      'Keyed create: `POST /v1/merchant/payment` with a new `Idempotency-Key` and a new `referenceId` each time, ' +
      'what `@paygate/sdk-merchant` sends. Create: the same without the key. Status: `GET ' +
      '/v1/merchant/payment/{id}/status` of one payment. One merchant key throughout (after its first request it is ' +
      'served from the credential cache, as a busy integration is).',
  ].join('\n');
  console.log(table);
  if (process.env.BENCH_WRITE !== '0') writeSection('api', table);
}

await main();
