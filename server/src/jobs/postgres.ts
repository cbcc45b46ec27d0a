import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  Logger as GraphileLogger,
  run,
  runOnce,
  type Runner,
  type Task as GraphileTask,
  type WorkerEvents,
} from 'graphile-worker';
import type { Database } from '../db/connect.js';
import { openJobPool } from '../db/jobPool.js';
import { createLockerLiveness, type LockerLivenessOptions } from './lockerLiveness.js';
import {
  completedLevel,
  DEFAULT_JOB_CONCURRENCY,
  OUTAGE_RETRY_MS,
  type AddJobOptions,
  type JobQueue,
  type TaskList,
} from './types.js';

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
  /** Whether a failure is an outage outside Paygate: retried after OUTAGE_RETRY_MS, its attempts not spent. */
  isOutage?: (err: unknown) => boolean;
  /** The sweep that frees the jobs of dead processes' workers (jobs/lockerLiveness.ts, docs/decisions.md §27.25). */
  liveness?: LockerLivenessOptions;
}

/**
 * The queue's own field in a payload: the job's due time on the injected clock (ms). Stripped before the task sees
 * the payload; `drain()` reads it (graphile-worker's public `jobs` view has no payload column).
 */
export const DUE_FIELD = '__paygateDueAt';

/** How often a runner stopped by a database error is started again (PostgreSQL back: serving within this). */
export const RESTART_MS = 1000;

function withoutDue(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || !(DUE_FIELD in payload)) return payload;
  const { [DUE_FIELD]: _due, ...rest } = payload as Record<string, unknown>;
  return rest;
}

/**
 * graphile-worker on PostgreSQL. Jobs are added with `graphile_worker.add_job` inside the caller's transaction, so
 * a job exists exactly when the state change that caused it committed. graphile-worker frees a crashed worker's
 * locks only after 4 hours; a started queue frees those of a dead process within seconds (jobs/lockerLiveness.ts).
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
  // Not for drain(): a drain is a test's or a command's, and a process killed during one is what the sweep frees.
  const liveness = createLockerLiveness({ ...options.liveness, url: db.url, knex: db.knex, logger });

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
            if (options.isOutage?.(err)) {
              // graphile-worker's backoff cannot be shortened per failure: the job is added again under its key (a
              // locked job's key moves to the new one) and this run completes, so no attempt is spent.
              await queue.add(db.knex, name, withoutDue(payload) as Record<string, unknown>, {
                jobKey: helpers.job.key ?? undefined,
                runAt: now() + OUTAGE_RETRY_MS,
                maxAttempts: helpers.job.max_attempts,
              });
              logger.warn({ ...line(), err }, 'job postponed: a chain does not answer');
              return;
            }
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
    // Without batching, graphile-worker records a job's end with a call nobody awaits: when PostgreSQL is away
    // (restarting) that call rejects unhandled, which ends the process, and the job stays locked for hours. Batched
    // (delay 0: the same tick), the end is retried with backoff until the database answers again.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
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

  /**
   * graphile-worker shuts its whole pool down when it cannot record a job's end (a worker exits with the connection
   * error) and rejects the runner's promise; nothing restarted it, and before batching (see `preset`) the rejection
   * was unhandled and ended the process (every API process in the rehearsal's step 3). Here it is logged and a new
   * runner is started, retried every RESTART_MS until the database answers, so the process recovers by itself.
   *
   * The jobs that were running stay locked by the stopped runner's workers, which graphile-worker frees only after
   * 4 hours (a webhook delivery would wait that long). Once that runner has ended (none of its tasks still runs),
   * its workers' locks are freed with `force_unlock_workers` as soon as the database answers, so those jobs run
   * again (at least once, as after any crash). stop() waits for the stopped runners too, and for a runner still
   * starting, so nothing outlives it.
   */
  let stopping = false;
  let restartTimer: NodeJS.Timeout | null = null;
  let starting: Promise<void> | null = null;
  const ending = new Set<Promise<void>>();
  /** Pool and worker ids of ended runners whose locks are not freed yet (the database did not answer). */
  const orphans = new Set<string>();
  const unlockOrphans = async (): Promise<void> => {
    if (orphans.size === 0) return;
    const ids = [...orphans];
    await db.knex.raw('SELECT graphile_worker.force_unlock_workers(?::text[])', [ids]);
    for (const id of ids) orphans.delete(id);
    logger.info({ lockers: ids.length }, 'freed the jobs of a job runner stopped by a database error');
  };
  const startRunner = async (): Promise<void> => {
    const events = new EventEmitter() as WorkerEvents;
    // Jobs are locked by a worker's id, or by its pool's when they are fetched for the pool.
    const lockers: string[] = [];
    // Each declared to the liveness sweep as it is made, before its first job can be held for the sweep's grace.
    const locker = (id: string) => {
      lockers.push(id);
      liveness.hold(id);
    };
    events.on('pool:create', ({ workerPool }) => locker(workerPool.id));
    events.on('worker:create', ({ worker }) => locker(worker.workerId));
    const started = await run({ ...workerOptions(), events });
    if (stopping) {
      await started.stop().catch(() => undefined);
      return;
    }
    runner = started;
    // This runner reached the database: the locks left by the runners it replaced can be freed now.
    await unlockOrphans().catch((err: unknown) => logger.warn({ err }, 'could not free the stopped runner’s jobs yet'));
    let replaced = false;
    const replace = (err: unknown) => {
      if (replaced || stopping || runner !== started) return;
      replaced = true;
      runner = null;
      logger.error({ err }, 'the job runner stopped on a database error; it starts again when the database answers');
      // Its workers' locks are freed only once it has ended: a task of it may still be running until then.
      const end = started.promise
        .catch(() => undefined)
        .then(async () => {
          for (const id of lockers) orphans.add(id);
          liveness.release(lockers);
          await unlockOrphans().catch(() => undefined);
        })
        .finally(() => ending.delete(end));
      ending.add(end);
      scheduleRestart();
    };
    // A shutdown we did not ask for: its workers are gone, and its promise may settle much later (or never, while it
    // cannot release its jobs), so a new runner is started now rather than when it settles.
    started.events.on('pool:gracefulShutdown', ({ message }) => replace(new Error(message)));
    started.promise.catch(replace);
  };
  const scheduleRestart = () => {
    if (stopping || restartTimer) return;
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (stopping) return;
      starting = startRunner()
        .catch((err: unknown) => {
          logger.warn({ err }, 'the job runner could not start yet; retrying');
          scheduleRestart();
        })
        .finally(() => (starting = null));
    }, RESTART_MS);
  };

  const queue: JobQueue = {
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
      stopping = false;
      await liveness.start();
      await startRunner();
    },
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      // A runner being started finds `stopping` set and stops itself.
      await starting;
      const current = runner;
      runner = null;
      // A runner that already stopped on its own (a database error) rejects its stop too: nothing is left to end.
      await current?.stop().catch(() => undefined);
      await Promise.all(ending);
      await liveness.stop();
      const closing = pgPool?.end();
      pgPool = null;
      await closing;
    },
    async drain() {
      await alignDueTimes();
      let ran = 0;
      await runOnce(workerOptions(() => ran++));
      return ran;
    },
  };
  return queue;
}
