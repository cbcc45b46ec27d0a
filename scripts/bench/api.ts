/**
 * `npm run bench -- api`: rps and p99 of create-payment and payment-status on SQLite and PostgreSQL, beside a bare
 * Express JSON route measured in the same run. Targets: create ≥ 30 % and status ≥ 50 % of the bare route's rps.
 * Servers run in child processes; autocannon runs here.
 *
 * The machine is shared, so a neighbour's load comes and goes within a run: each row alternates short slices of the
 * bare route and of the Paygate operation (after a warm-up of each), and its ratio is the Paygate requests over the
 * bare requests served in those slices, so both sides see the same load.
 *
 * Environment: BENCH_SECONDS (per row and side, default 10); BENCH_SLICES (default 5); BENCH_DATABASES
 * (sqlite,postgres); BENCH_WRITE=0 prints without rewriting BENCHMARKS.md; BENCH_CPU_PROF=DIR writes the Paygate
 * servers' CPU profiles (`node --cpu-prof`) to DIR.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/helpers/postgres.js';
import { machineLine, writeSection } from './_report.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
const WARMUP_SECONDS = 1;
const CONNECTIONS = 20;
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
const CPU_PROF = process.env.BENCH_CPU_PROF;

interface Started {
  child: ChildProcess;
  info: { url: string; apiKey?: string; merchantId?: string; paymentId?: string };
}

async function startServer(args: string[], profile = false): Promise<Started> {
  const child = spawn(
    process.execPath,
    [
      ...(profile && CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
      '--import',
      'tsx',
      '--conditions=@paygate/source',
      'scripts/bench/_server.ts',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

/** SIGINT, so that a profiled server writes its profile on the way out. */
async function stopServer(server: Started): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGINT');
  await exited;
}

interface Measured {
  rps: number;
  p99: number;
  errors: number;
}

async function load(opts: autocannon.Options, seconds: number): Promise<Measured & { requests: number }> {
  const result = await autocannon({ connections: CONNECTIONS, duration: seconds, ...opts });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
  };
}

/** Alternating slices of the two loads, after a warm-up of each; p99 is the median of the slices'. */
async function interleaved(bare: autocannon.Options, paygate: autocannon.Options): Promise<[Measured, Measured]> {
  await load(bare, WARMUP_SECONDS);
  await load(paygate, WARMUP_SECONDS);
  const slice = DURATION / SLICES;
  const sides: (Measured & { requests: number })[][] = [[], []];
  for (let i = 0; i < SLICES; i++) {
    sides[0]!.push(await load(bare, slice));
    sides[1]!.push(await load(paygate, slice));
  }
  const total = (side: (Measured & { requests: number })[]): Measured => {
    const p99s = side.map((m) => m.p99).sort((a, b) => a - b);
    return {
      rps: side.reduce((n, m) => n + m.requests, 0) / (slice * side.length),
      p99: p99s[Math.floor(p99s.length / 2)]!,
      errors: side.reduce((n, m) => n + m.errors, 0),
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
  return `| ${what} | ${m.rps.toFixed(0)} | ${m.p99} ms | ${ratio.toFixed(2)}${verdict}${errors} |`;
}

async function main(): Promise<void> {
  const loadBefore = loadLine();
  const pg: ThrowawayPostgres | null = DATABASES.includes('postgres') ? await startThrowawayPostgres() : null;
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const rows: string[] = [];
  const bare = await startServer(['bare']);
  try {
    const bareCreate: autocannon.Options = {
      url: `${bare.info.url}/bare`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: createBody(),
    };
    const bareStatus: autocannon.Options = { url: `${bare.info.url}/bare` };

    const databases = [
      ['sqlite', 'SQLite', `sqlite:${join(dir, 'bench.sqlite')}`],
      ['postgres', 'PostgreSQL', pg?.url ?? ''],
    ] as const;
    for (const [id, name, url] of databases) {
      if (!DATABASES.includes(id)) continue;
      const server = await startServer(['paygate', url], true);
      const headers = {
        'content-type': 'application/json',
        'api-key': server.info.apiKey!,
        'merchant-id': server.info.merchantId!,
      };
      const [basePost, create] = await interleaved(bareCreate, {
        url: `${server.info.url}/v1/merchant/payment`,
        method: 'POST',
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, body: createBody() }) }],
      });
      // Informational: with a key, a create commits with its key's answer, outside the group commit.
      const [baseKeyed, keyed] = await interleaved(bareCreate, {
        url: `${server.info.url}/v1/merchant/payment`,
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
      });
      const [baseGet, status] = await interleaved(bareStatus, {
        url: `${server.info.url}/v1/merchant/payment/${server.info.paymentId}/status`,
        headers,
      });
      await stopServer(server);
      rows.push(row(`bare Express route (POST, baseline), beside the ${name} create row`, basePost, null));
      rows.push(row(`create payment, ${name}`, create, basePost, 0.3));
      rows.push(row(`bare Express route (POST, baseline), beside the ${name} keyed create row`, baseKeyed, null));
      rows.push(row(`create payment with an Idempotency-Key, ${name} (no target)`, keyed, baseKeyed));
      rows.push(row(`bare Express route (GET, baseline), beside the ${name} status row`, baseGet, null));
      rows.push(row(`payment status, ${name}`, status, baseGet, 0.5));
    }
  } finally {
    await stopServer(bare);
    pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = [
    `## api`,
    '',
    `${machineLine()} · load average ${loadBefore} before, ${loadLine()} after · autocannon, ${CONNECTIONS} connections, ${DURATION} s per row and side in ${SLICES} alternating slices after a ${WARMUP_SECONDS} s warm-up of each, each server in its own process; a ratio is the row's requests over the bare route's in the slices beside it`,
    '',
    '| What | req/s | p99 | ratio to bare route |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Create: `POST /v1/merchant/payment` with a new `referenceId` each time and no `Idempotency-Key`. Status: `GET ' +
      '/v1/merchant/payment/{id}/status` of one payment. One merchant key throughout (so after its first request it ' +
      'is served from the credential cache, as a busy integration is); the Paygate servers log nothing (`LOG_LEVEL=' +
      'silent`) and have the rate limit out of reach; PostgreSQL is a throwaway one with fsync off, on the same two cores. ' +
      'Under this load, creates that arrive together share one transaction (group commit) and polls share one ' +
      'statement (`db/combiner.ts`); a create with an `Idempotency-Key` (a new key each time) commits alone, with its ' +
      "key's answer.",
  ].join('\n');
  console.log(table);
  if (process.env.BENCH_WRITE !== '0') writeSection('api', table);
}

await main();
