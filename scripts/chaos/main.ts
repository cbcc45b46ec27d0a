/**
 * `npm run chaos -- --seed N --minutes M`: a chaos run (scripts/chaos/run.ts) on a throwaway PostgreSQL (or the
 * database DATABASE_URL names, which must be empty) and the local chains, then its summary table and the seed to
 * replay. Exits 1 on any invariant violation, or when the money did not settle within the bound.
 *
 * Options: --apis (2), --workers (1), --concurrency (3 payments at once), --kill-every-s (20), --settle-s (300),
 * --out FILE (the summary's Markdown, written there too).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { openDatabase } from '@paygate/server';
import { stopSharedChains } from '../../test/helpers/chain.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/helpers/postgres.js';
import { machineLine } from '../bench/_report.js';
import { runChaos, summaryMarkdown } from './run.js';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number`);
  return value;
}

async function main(): Promise<void> {
  const seed = arg('seed', Math.floor(Math.random() * 2 ** 31));
  const minutes = arg('minutes', 5);
  const outAt = process.argv.indexOf('--out');
  const out = outAt >= 0 ? process.argv[outAt + 1] : undefined;
  let pg: ThrowawayPostgres | null = null;
  const url = process.env.DATABASE_URL ?? (pg = await startThrowawayPostgres()).url;
  const db = openDatabase(url);
  const load = loadavg()[0]!;
  const started = new Date();
  console.log(`chaos run: seed ${seed}, ${minutes} min (replay: npm run chaos -- --seed ${seed} --minutes ${minutes})`);
  try {
    const summary = await runChaos({
      seed,
      durationMs: minutes * 60_000,
      database: { url, db },
      apis: arg('apis', 2),
      workers: arg('workers', 1),
      concurrency: arg('concurrency', 3),
      killEveryMs: arg('kill-every-s', 20) * 1000,
      settleMs: arg('settle-s', 300) * 1000,
      log: (line) => console.log(`[${new Date().toISOString()}] ${line}`),
    });
    const markdown = [
      `Started ${started.toISOString()}; ${machineLine()}; load average at start ${load.toFixed(1)}, at end ${loadavg()[0]!.toFixed(1)}.`,
      '',
      summaryMarkdown(summary),
    ].join('\n');
    console.log(markdown);
    if (out) writeFileSync(out, `${markdown}\n`);
    if (summary.violations.length > 0 || !summary.settled) process.exitCode = 1;
  } finally {
    await db.close();
    await stopSharedChains();
    pg?.stop();
  }
}

await main();
