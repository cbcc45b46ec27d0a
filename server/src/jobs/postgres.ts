import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Logger as GraphileLogger, run, runOnce, type Runner, type Task as GraphileTask } from 'graphile-worker';
import type { Database } from '../db/connect.js';
import { openJobPool } from '../db/jobPool.js';
import { completedLevel, DEFAULT_JOB_CONCURRENCY, type AddJobOptions, type JobQueue, type TaskList } from './types.js';

/** Routes graphile-worker's own log lines into our pino logger. */
function graphileLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level, message, meta) => {
    const method = level === 'warning' ? 'warn' : level === 'error' ? 'error' : level === 'info' ? 'info' : 'debug';
    logger[method]({ ...scope, ...meta, component: 'graphile-worker' }, message);
  });
}

export interface PostgresQueueOptions {
  db: Database;
  tasks: TaskList;
  logger: Logger;
  now: () => number;
  concurrency?: number;
  pollIntervalMs?: number;
}

/**
 * The queue's own field in a payload: the job's due time on the injected clock (ms). Stripped before the task sees
 * the payload; `drain()` reads it (graphile-worker's public `jobs` view has no payload column).
 */
export const DUE_FIELD = '__paygateDueAt';

function withoutDue(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || !(DUE_FIELD in payload)) return payload;
  const { [DUE_FIELD]: _due, ...rest } = payload as Record<string, unknown>;
  return rest;
}

/**
 * graphile-worker on PostgreSQL. Jobs are added with `graphile_worker.add_job` inside the caller's transaction, so
 * a job exists exactly when the state change that caused it committed. graphile-worker frees a crashed worker's
 * locks only after 4 hours; time-critical state therefore lives in our own tables, swept by the sweepers.
 *
 * Time (docs/decisions.md §22.10): callers compute `runAt` on the injected clock, while graphile-worker compares a
 * job's `run_at` with the wall clock (`useNodeTime`). `add` therefore stores the wall time that is the same delay
 * away (identical in production, where the injected clock is the wall clock) and keeps the business due time in the
 * payload (`DUE_FIELD`); `drain()` first moves every waiting job's `run_at` to match it, so that it runs exactly the
 * jobs due on the injected clock, whatever the two clocks read. A retry after a failure keeps graphile-worker's
 * wall-clock backoff.
 */
export function createPostgresQueue(options: PostgresQueueOptions): JobQueue {
  const { db, tasks, logger, now } = options;
  let runner: Runner | null = null;
  const concurrency = options.concurrency ?? DEFAULT_JOB_CONCURRENCY;
  // One pool for the runner and every drain, opened on first use and ended by stop (db/jobPool.ts); a connection per
  // running job for fetching and completing it, as graphile-worker advises.
  let pgPool: ReturnType<typeof openJobPool> | null = null;
  const poolOf = () => (pgPool ??= openJobPool(db.url, { max: Math.max(10, concurrency), logger }));

  // Built on first use: the runtime registers tasks after the queue exists.
  const taskList = (onRun?: () => void): Record<string, GraphileTask> =>
    Object.fromEntries(
      Object.entries(tasks).map(([name, task]) => [
        name,
        async (payload, helpers) => {
          const started = Date.now();
          const line = () => ({
            job: helpers.job.id,
            task: name,
            attempt: helpers.job.attempts,
            ms: Date.now() - started,
          });
          let outcome: Awaited<ReturnType<typeof task>>;
          onRun?.();
          try {
            outcome = await task(withoutDue(payload), { logger, now, attempt: helpers.job.attempts });
          } catch (err) {
            // One line per run in the same shape as the SQLite engine's; graphile-worker then schedules the retry.
            logger.error({ ...line(), err }, 'job failed');
            throw err;
          }
          logger[completedLevel(outcome)](line(), 'job completed');
        },
      ]),
    );

  const workerOptions = (onRun?: () => void) => ({
    pgPool: poolOf(),
    taskList: taskList(onRun),
    concurrency,
    pollInterval: options.pollIntervalMs ?? 1000,
    noHandleSignals: true,
    useNodeTime: true,
    logger: graphileLogger(logger),
  });

  /**
   * Gives every waiting job with a business due time the wall `run_at` that is as far from now as its due time is
   * from the injected clock's now: due ones move to the past, the others to the future. Jobs being run (locked) and
   * retries after a failure (attempts > 0: their backoff is graphile-worker's) are left alone.
   */
  async function alignDueTimes(): Promise<void> {
    const business = now();
    const wall = Date.now();
    const { rows } = (await db.knex.raw(
      `SELECT id, (payload->>'${DUE_FIELD}')::bigint AS due, run_at <= ?::timestamptz AS wall_due
         FROM graphile_worker._private_jobs
        WHERE locked_at IS NULL AND attempts = 0 AND payload->>'${DUE_FIELD}' IS NOT NULL`,
      [new Date(wall).toISOString()],
    )) as { rows: { id: string; due: string; wall_due: boolean }[] };
    for (const row of rows) {
      const due = Number(row.due);
      if (due <= business === row.wall_due) continue;
      await db.knex.raw('SELECT graphile_worker.reschedule_jobs(ARRAY[?::bigint], run_at => ?::timestamptz)', [
        row.id,
        new Date(wall + (due - business)).toISOString(),
      ]);
    }
  }

  return {
    async add(trx: Knex | Knex.Transaction, task: string, payload: Record<string, unknown>, opts: AddJobOptions = {}) {
      const { runAt } = opts;
      await trx.raw(
        'SELECT graphile_worker.add_job(?, ?::json, run_at => ?::timestamptz, job_key => ?, max_attempts => ?)',
        [
          task,
          JSON.stringify(runAt === undefined ? payload : { ...payload, [DUE_FIELD]: runAt }),
          // Unset means "now". Set: the same delay from the wall clock as from the injected one.
          runAt === undefined ? null : new Date(Date.now() + (runAt - now())).toISOString(),
          opts.jobKey ?? null,
          opts.maxAttempts ?? 25,
        ],
      );
    },
    async start() {
      runner = await run(workerOptions());
    },
    async stop() {
      await runner?.stop();
      runner = null;
      const ending = pgPool?.end();
      pgPool = null;
      await ending;
    },
    async drain() {
      await alignDueTimes();
      let ran = 0;
      await runOnce(workerOptions(() => ran++));
      return ran;
    },
  };
}
