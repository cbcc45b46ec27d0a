/**
 * `paygate worker`: the background jobs and sweepers without the HTTP API. With PostgreSQL, run as many as you
 * like on as many machines as you like; graphile-worker hands each job to one of them.
 */
import { parseArgs } from 'node:util';
import { isEmbedded } from '../db/dialect.js';
import { DEFAULT_JOB_CONCURRENCY } from '../jobs/types.js';
import { createRuntime } from '../runtime.js';
import { listenMetrics } from '../server.js';
import { commonOptions, loadCliConfig, RUNNING, UsageError, type CliIo } from './common.js';

export const workerHelp = `Usage: paygate worker [--concurrency N] [--sweep-interval-ms MS] [--lease-ms MS] [--json]

Runs webhook delivery, settlement, expiry and the recovery sweepers, without the HTTP API; with chains other
than local it connects to them and also runs relays, watches and settlement moves. On PostgreSQL any
number of workers can run against one database. On SQLite the API process runs the jobs itself; a separate
worker there would compete for the one database file, so it is refused.
--concurrency (default 16) is how many jobs it runs at once (webhook attempts mostly wait on receivers);
--sweep-interval-ms (default 10000) is how often overdue work is looked for; --lease-ms (default 20000) is how
long an attempt a worker claimed stays its own unless renewed: the worker renews it every quarter of that while
the attempt is in flight, and every worker looks for passed leases (a crashed worker's attempts) every tenth of it
and hands them on, so a crashed worker's attempts are made again within about 1.1 leases.
With --json, prints {"worker": "ready", "pid": …} once jobs are being taken.
`;

export async function runWorker(args: string[], io: CliIo): Promise<number | typeof RUNNING> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        ...commonOptions,
        concurrency: { type: 'string' },
        'sweep-interval-ms': { type: 'string' },
        'lease-ms': { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message, workerHelp);
  }
  if (values.help) {
    io.stdout.write(workerHelp);
    return 0;
  }
  const positive = (name: string, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`, workerHelp);
    return n;
  };
  const concurrency = positive('concurrency', values.concurrency);
  const sweepIntervalMs = positive('sweep-interval-ms', values['sweep-interval-ms']);
  const leaseMs = positive('lease-ms', values['lease-ms']);
  const config = loadCliConfig(io);
  if (isEmbedded(config.databaseUrl)) {
    throw new Error(
      'paygate worker needs PostgreSQL (DATABASE_URL=postgres://…); with SQLite, paygate start runs the jobs',
    );
  }
  const runtime = await createRuntime({
    config,
    jobConcurrency: concurrency,
    sweepIntervalMs,
    jobPollIntervalMs: sweepIntervalMs === undefined ? undefined : Math.min(sweepIntervalMs, 1000),
    webhookOptions: leaseMs === undefined ? {} : { leaseMs },
    // The chains' jobs (relays, watches, settlement moves) run in workers too. The local chains live inside
    // `paygate start` alone (anvil is its child), so a worker beside them runs the other jobs only.
    chains: config.chains.split(',').some((c) => c.trim() === 'local') ? undefined : 'start',
  });
  await runtime.startBackground();
  const metrics = await listenMetrics(runtime);
  runtime.logger.info(
    { pid: process.pid, concurrency: concurrency ?? DEFAULT_JOB_CONCURRENCY },
    'paygate worker ready',
  );
  if (values.json) io.stdout.write(JSON.stringify({ worker: 'ready', pid: process.pid }) + '\n');
  const stop = (signal: NodeJS.Signals) => {
    runtime.logger.info({ signal }, 'worker stopping');
    // Same deadline as the API: a running attempt past it is recorded as interrupted and retried, never lost.
    runtime
      .stopBackground(config.shutdownTimeoutMs)
      .then(() => metrics?.close())
      .then(() => runtime.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          runtime.logger.error({ err }, 'worker stop failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return RUNNING;
}
