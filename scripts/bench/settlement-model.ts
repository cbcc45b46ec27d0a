/**
 * `npm run bench -- settlement-model [--minutes M]` (30 by default): the settlement model test's random sequences
 * (test/settlement/settlementModel.*.ts, the same commands and invariants as `npm test`'s fixed seeds) from random
 * seeds for M minutes, alternating SQLite and PostgreSQL, against a throwaway PostgreSQL (or DATABASE_URL) and a local
 * anvil. Prints and writes to BENCHMARKS.md the counts: sequences, steps, violations (must be 0) and the seed and path
 * of each failure, to replay with PAYGATE_MODEL_SEED / PAYGATE_MODEL_PATH.
 *
 * Env: BENCH_MODEL_STEPS (20, commands per sequence at most), BENCH_MODEL_SEED (a first seed: seeds then count up
 * from it, for a reproducible run), BENCH_WRITE=0 (print only).
 */
import { randomInt } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Dialect } from '@paygate/server';
import { stopSharedChains } from '../../test/helpers/chain.js';
import { prepareTemplate } from '../../test/helpers/db.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/helpers/postgres.js';
import { disabledFromEnv, runModelSequences } from '../../test/settlement/settlementModel.run.js';
import { machineLine, writeSection } from './_report.js';

function minutesArg(): number {
  const at = process.argv.indexOf('--minutes');
  const value = at >= 0 ? Number(process.argv[at + 1]) : 30;
  if (!Number.isFinite(value) || value <= 0) throw new Error('--minutes takes a positive number');
  return value;
}

async function main(): Promise<void> {
  const minutes = minutesArg();
  const steps = Number(process.env.BENCH_MODEL_STEPS ?? 20);
  let seed = process.env.BENCH_MODEL_SEED ? Number(process.env.BENCH_MODEL_SEED) : null;
  let pg: ThrowawayPostgres | null = null;
  if (process.env.DATABASE_URL) process.env.PAYGATE_TEST_POSTGRES_URL = process.env.DATABASE_URL;
  else {
    pg = await startThrowawayPostgres();
    process.env.PAYGATE_TEST_POSTGRES_URL = pg.url;
  }
  const counts: Record<Dialect, { sequences: number; steps: number }> = {
    sqlite: { sequences: 0, steps: 0 },
    postgres: { sequences: 0, steps: 0 },
  };
  const failures: string[] = [];
  const started = performance.now();
  const load = loadavg()[0]!;
  try {
    await prepareTemplate(process.env.PAYGATE_TEST_POSTGRES_URL);
    const deadline = started + minutes * 60_000;
    for (let i = 0; performance.now() < deadline; i++) {
      const dialect: Dialect = i % 2 === 0 ? 'sqlite' : 'postgres';
      const runSeed = seed ?? randomInt(2 ** 31 - 1);
      if (seed !== null) seed += 1;
      const report = await runModelSequences({
        dialect,
        seed: runSeed,
        numRuns: 1,
        maxCommands: steps,
        disabled: disabledFromEnv(),
      });
      counts[dialect].sequences += report.sequences;
      counts[dialect].steps += report.steps;
      if (report.failure) {
        failures.push(`${dialect}: ${report.failure}`);
        console.log(`FAILED ${dialect} ${report.failure}`);
      }
      if ((i + 1) % 10 === 0) console.log(`${i + 1} sequences, ${failures.length} violations`);
    }
  } finally {
    await stopSharedChains();
    pg?.stop();
  }
  const elapsed = (performance.now() - started) / 60_000;
  const rows = (['sqlite', 'postgres'] as const).map(
    (d) => `| ${d} | ${counts[d].sequences} | ${counts[d].steps} | ${failures.filter((f) => f.startsWith(d)).length} |`,
  );
  const disabled = [...disabledFromEnv()];
  const markdown = [
    '## Settlement model (issue 30)',
    '',
    `\`npm run bench -- settlement-model --minutes ${minutes}\`: random sequences of at most ${steps} commands (payments in both modes; exact, partial, over, late and reorganised deposits; mode switches; refunds, claims and expiries; sweeps and payouts in flight; worker restarts) against the real server and anvil, every invariant checked after every step (docs/decisions.md §22.17).${disabled.length > 0 ? ` Commands left out: ${disabled.join(', ')}.` : ''}`,
    '',
    machineLine(),
    `Ran ${elapsed.toFixed(1)} min; load average at start ${load.toFixed(1)}.`,
    '',
    '| database | sequences | steps | violations |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
    '',
    failures.length === 0
      ? 'Violations: 0.'
      : `Failures (seed and path to replay):\n\n${failures.map((f) => `- ${f.replace(/\n/g, ' ')}`).join('\n')}`,
  ].join('\n');
  console.log(markdown);
  writeSection('settlement-model', markdown);
  if (failures.length > 0) process.exitCode = 1;
}

await main();
