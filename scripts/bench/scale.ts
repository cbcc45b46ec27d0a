/**
 * `npm run bench -- scale [--payments N] [--db sqlite|postgres|both]` (issue 36): one merchant's history filled to
 * 10k, 100k and 1M payments (up to N, default 1,000,000) in one run, with the other merchants' payments, webhook
 * deliveries and attempts, ledger, audit and payout rows in the proportions (scripts/bench/_scaleSeed.ts);
 * at each size the p50 and p95 of every merchant and dashboard read through the real HTTP API, each CSV export's
 * rows per second and peak RSS, creates per second beside the empty database's, and the database's size.
 *
 * Options: --iterations (calls per read, default 40); --create-seconds (default 5); --sqlite-cache-kib (SQLite's page
 * cache instead of the server's 64 MiB, e.g. 16000, better-sqlite3's default); BENCH_WRITE=0 prints without
 * rewriting BENCHMARKS.md. Results are also written after each size to BENCH_OUT (default
 * /tmp/paygate-bench-scale.json), so a run stopped half-way keeps what it measured.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateDatabase, openDatabase, type Database } from '@paygate/server';
import { startThrowawayPostgres } from '../../test/helpers/postgres.js';
import { writeSection } from './_report.js';
import { markdownOf } from './_scaleReport.js';
import { fillTo } from './_scaleSeed.js';
import { measureScan, type ScanFigures } from './_scaleScan.js';
import {
  databaseBytes,
  measureCreates,
  measureExports,
  measureReads,
  readsOf,
  serve,
  type ExportFigures,
  type Read,
  type Timing,
} from './_scaleMeasure.js';
import { plansOf } from './_scalePlans.js';
import { measureConfirms, measureDeliveries } from './_scaleWrites.js';

export interface SizeResult {
  payments: number;
  fillSeconds: number;
  reads: Record<string, Timing>;
  exports: Record<string, ExportFigures>;
  createsPerSecond: number;
  confirmsPerSecond?: number;
  deliveriesPerSecond?: number;
  databaseBytes: number;
  /** The machine's 1-minute load average at the end of each phase (the machine is shared). */
  load?: Record<string, number>;
  /** PostgreSQL: the scan nodes of each read's statements (EXPLAIN at this size). */
  plans?: Record<string, string[]>;
}

export interface DatabaseResult {
  dialect: string;
  /** `--scan-only`: one deposit scan round over the watched addresses, on a database of its own. */
  scan?: ScanFigures;
  emptyCreatesPerSecond: number;
  emptyConfirmsPerSecond?: number;
  emptyDeliveriesPerSecond?: number;
  sizes: SizeResult[];
  targets: Record<string, number>;
}

/** The sizes measured up to `payments`: 10k, 100k and 1M, and `payments` itself. */
export function sizesUpTo(payments: number): number[] {
  return [...new Set([...[10_000, 100_000, 1_000_000].filter((n) => n < payments), payments])];
}

/** Fills and measures one database (the smoke test calls this at a tiny size). */
export async function runOne(
  db: Database,
  sizes: number[],
  options: {
    iterations: number;
    createSeconds: number;
    timelineDeliveries: number;
    log?: (line: string) => void;
    onSize?: (r: DatabaseResult) => void;
  },
): Promise<DatabaseResult> {
  const log = options.log ?? (() => {});
  const s = await serve(db);
  try {
    const result: DatabaseResult = {
      dialect: db.dialect,
      emptyCreatesPerSecond: await measureCreates(s, options.createSeconds),
      emptyConfirmsPerSecond: await measureConfirms(s, options.createSeconds),
      emptyDeliveriesPerSecond: await measureDeliveries(s, options.createSeconds),
      sizes: [],
      targets: {},
    };
    log(
      `${db.dialect}: empty database, ${result.emptyCreatesPerSecond} creates/s, ${result.emptyConfirmsPerSecond} confirms/s, ${result.emptyDeliveriesPerSecond} deliveries/s (load ${load()})`,
    );
    let timelineId = '';
    let reads: Read[] = [];
    for (const size of sizes) {
      const t0 = performance.now();
      const timeline = await fillTo(s.fill, size, timelineId ? 0 : options.timelineDeliveries);
      if (timeline) timelineId = timeline.id;
      const fillSeconds = (performance.now() - t0) / 1000;
      const loads: Record<string, number> = { fill: load() };
      log(`${db.dialect}: filled to ${size} payments in ${fillSeconds.toFixed(0)} s (load ${loads.fill})`);
      reads = await readsOf(s, timelineId);
      result.targets = Object.fromEntries(reads.map((r) => [r.name, r.target]));
      const timings = await measureReads(s, reads, options.iterations);
      loads.reads = load();
      log(`${db.dialect} @${size}: ${JSON.stringify(timings)} (load ${loads.reads})`);
      const plans = db.dialect === 'postgres' ? await plansOf(s, reads) : undefined;
      if (plans) log(`${db.dialect} @${size}: plans ${JSON.stringify(plans)}`);
      const exports = await measureExports(s);
      loads.exports = load();
      log(`${db.dialect} @${size}: exports ${JSON.stringify(exports)} (load ${loads.exports})`);
      const createsPerSecond = await measureCreates(s, options.createSeconds);
      const confirmsPerSecond = await measureConfirms(s, options.createSeconds);
      const deliveriesPerSecond = await measureDeliveries(s, options.createSeconds);
      loads.writes = load();
      log(
        `${db.dialect} @${size}: ${createsPerSecond} creates/s, ${confirmsPerSecond} confirms/s, ${deliveriesPerSecond} deliveries/s (load ${loads.writes})`,
      );
      result.sizes.push({
        payments: size,
        fillSeconds,
        reads: timings,
        exports,
        createsPerSecond,
        confirmsPerSecond,
        deliveriesPerSecond,
        databaseBytes: await databaseBytes(db),
        load: loads,
        plans,
      });
      options.onSize?.(result);
    }
    return result;
  } finally {
    await s.close();
  }
}

const load = () => Math.round(loadavg()[0]! * 10) / 10;

export { markdownOf } from './_scaleReport.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      payments: { type: 'string', default: '1000000' },
      /** The sizes to measure instead of 10k, 100k and --payments (comma-separated), e.g. a step a run can reach. */
      sizes: { type: 'string' },
      db: { type: 'string', default: 'both' },
      iterations: { type: 'string', default: '40' },
      'create-seconds': { type: 'string', default: '5' },
      /** Only writes the report from result files of earlier runs (comma-separated), e.g. one per database. */
      report: { type: 'string' },
      /** Only the deposit scan round (on a fresh database per dialect): the watched addresses' number. */
      'scan-only': { type: 'string' },
      /** SQLite's page cache in KiB instead of the server's (SQLITE_CACHE_KIB), to measure writes without it. */
      'sqlite-cache-kib': { type: 'string' },
    },
  });
  if (values.report) {
    const merged = values.report.split(',').flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as DatabaseResult[]);
    const markdown = markdownOf(merged, process.env.BENCH_NOTE ?? '');
    console.log(markdown);
    writeSection('scale', markdown);
    return;
  }
  const payments = Number(values.payments);
  const dialects = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db!];
  const out = process.env.BENCH_OUT ?? '/tmp/paygate-bench-scale.json';
  const results: DatabaseResult[] = [];
  const save = () => writeFileSync(out, JSON.stringify(results, null, 2));
  if (values['scan-only']) {
    for (const dialect of dialects) {
      const pg = dialect === 'postgres' ? await startThrowawayPostgres() : null;
      try {
        const scan = await measureScan(pg?.url ?? null, Number(values['scan-only']), 100, (line) =>
          console.log(`[${new Date().toISOString().slice(11, 19)}] ${dialect} ${line}`),
        );
        console.log(dialect, JSON.stringify(scan));
        results.push({ dialect, scan, emptyCreatesPerSecond: 0, sizes: [], targets: {} });
        save();
      } finally {
        pg?.stop();
      }
    }
    return;
  }
  for (const dialect of dialects) {
    let db: Database;
    let cleanup: () => void;
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'paygate-scale-'));
      const cache = values['sqlite-cache-kib'];
      db = openDatabase(`sqlite:${join(dir, 'paygate.sqlite')}`, {
        sqliteCacheKiB: cache === undefined ? undefined : Number(cache),
      });
      cleanup = () => rmSync(dir, { recursive: true, force: true });
    } else {
      const pg = await startThrowawayPostgres();
      db = openDatabase(pg.url);
      cleanup = () => pg.stop();
    }
    try {
      await migrateDatabase(db);
      const partial: DatabaseResult = { dialect, emptyCreatesPerSecond: 0, sizes: [], targets: {} };
      results.push(partial);
      const sizes = values.sizes ? values.sizes.split(',').map(Number) : sizesUpTo(payments);
      const r = await runOne(db, sizes, {
        iterations: Number(values.iterations),
        createSeconds: Number(values['create-seconds']),
        timelineDeliveries: 2000,
        log: (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
        onSize: (now) => {
          Object.assign(partial, now);
          save();
        },
      });
      Object.assign(partial, r);
      save();
    } finally {
      await db.close();
      cleanup();
    }
  }
  const markdown = markdownOf(results, process.env.BENCH_NOTE ?? '');
  console.log(markdown);
  writeSection('scale', markdown);
}

if (process.argv[1]?.endsWith('scale.ts')) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
