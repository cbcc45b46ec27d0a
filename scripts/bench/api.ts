/**
 * `npm run bench -- api`: rps and p99 of create-payment and payment-status on SQLite and PostgreSQL, beside a bare
 * Express JSON route measured in the same run. Targets: create ≥ 30 % and status ≥ 50 % of the bare route's rps.
 * Servers run in child processes; autocannon runs here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startThrowawayPostgres } from '../../test/helpers/postgres.js';
import { machineLine, writeSection } from './_report.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 20;

interface Started {
  child: ChildProcess;
  info: { url: string; apiKey?: string; merchantId?: string; paymentId?: string };
}

async function startServer(args: string[]): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@paygate/source', 'scripts/bench/_server.ts', ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

async function load(opts: autocannon.Options): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

let counter = 0;
const createBody = () =>
  JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: `order-${++counter}` });

async function main(): Promise<void> {
  const pg = await startThrowawayPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const rows: string[] = [];
  try {
    const bare = await startServer(['bare']);
    const bareCreate = await load({
      url: `${bare.info.url}/bare`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: createBody(),
    });
    const bareStatus = await load({ url: `${bare.info.url}/bare` });
    bare.child.kill();
    rows.push(`| bare Express route (POST, baseline) | ${bareCreate.rps.toFixed(0)} | ${bareCreate.p99} ms | 1.00 |`);
    rows.push(`| bare Express route (GET, baseline) | ${bareStatus.rps.toFixed(0)} | ${bareStatus.p99} ms | 1.00 |`);

    for (const [name, url] of [
      ['SQLite', `sqlite:${join(dir, 'bench.sqlite')}`],
      ['PostgreSQL', pg.url],
    ] as const) {
      const server = await startServer(['paygate', url]);
      const headers = {
        'content-type': 'application/json',
        'api-key': server.info.apiKey!,
        'merchant-id': server.info.merchantId!,
      };
      const create = await load({
        url: `${server.info.url}/v1/merchant/payment`,
        method: 'POST',
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, body: createBody() }) }],
      });
      const status = await load({
        url: `${server.info.url}/v1/merchant/payment/${server.info.paymentId}/status`,
        headers,
      });
      server.child.kill();
      rows.push(
        `| create payment, ${name} | ${create.rps.toFixed(0)} | ${create.p99} ms | ${(create.rps / bareCreate.rps).toFixed(2)} (target ≥ 0.30)${create.errors ? `, ${create.errors} errors` : ''} |`,
      );
      rows.push(
        `| payment status, ${name} | ${status.rps.toFixed(0)} | ${status.p99} ms | ${(status.rps / bareStatus.rps).toFixed(2)} (target ≥ 0.50)${status.errors ? `, ${status.errors} errors` : ''} |`,
      );
    }
  } finally {
    pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = [
    `## api`,
    '',
    `${machineLine()} · autocannon, ${CONNECTIONS} connections, ${DURATION} s per row, server in its own process`,
    '',
    '| What | req/s | p99 | ratio to bare route |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(table);
  writeSection('api', table);
}

await main();
