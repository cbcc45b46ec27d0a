import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Logger as GraphileLogger, run, runOnce, type Runner, type Task as GraphileTask } from 'graphile-worker';
import type { Database } from '../db/connect.js';
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
 * graphile-worker on PostgreSQL. Jobs are added with `graphile_worker.add_job` inside the caller's transaction, so
 * a job exists exactly when the state change that caused it committed. graphile-worker frees a crashed worker's
 * locks only after 4 hours; time-critical state therefore lives in our own tables, swept by the sweepers.
 */
export function createPostgresQueue(options: PostgresQueueOptions): JobQueue {
  const { db, tasks, logger, now } = options;
  let runner: Runner | null = null;

  // Built on first use: the runtime registers tasks after the queue exists.
  const taskList = (): Record<string, GraphileTask> =>
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
          try {
            outcome = await task(payload, { logger, now, attempt: helpers.job.attempts });
          } catch (err) {
            // One line per run in the same shape as the SQLite engine's; graphile-worker then schedules the retry.
            logger.error({ ...line(), err }, 'job failed');
            throw err;
          }
          logger[completedLevel(outcome)](line(), 'job completed');
        },
      ]),
    );

  const workerOptions = () => ({
    connectionString: db.url,
    taskList: taskList(),
    concurrency: options.concurrency ?? DEFAULT_JOB_CONCURRENCY,
    // A connection per running job for fetching and completing it, as graphile-worker advises.
    maxPoolSize: Math.max(10, options.concurrency ?? DEFAULT_JOB_CONCURRENCY),
    pollInterval: options.pollIntervalMs ?? 1000,
    noHandleSignals: true,
    useNodeTime: true,
    logger: graphileLogger(logger),
  });

  return {
    async add(trx: Knex | Knex.Transaction, task: string, payload: Record<string, unknown>, opts: AddJobOptions = {}) {
      await trx.raw(
        'SELECT graphile_worker.add_job(?, ?::json, run_at => ?::timestamptz, job_key => ?, max_attempts => ?)',
        [
          task,
          JSON.stringify(payload),
          // Unset means "now" by the database's clock: delays that tests drive through the clock live in our tables.
          opts.runAt === undefined ? null : new Date(opts.runAt).toISOString(),
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
    },
    async drain() {
      await runOnce(workerOptions());
      return 0;
    },
  };
}
