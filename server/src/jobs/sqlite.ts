import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  completedLevel,
  DEFAULT_JOB_CONCURRENCY,
  OUTAGE_RETRY_MS,
  type AddJobOptions,
  type JobQueue,
  type TaskList,
} from './types.js';

interface JobRow {
  id: number;
  task: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

export interface SqliteQueueOptions {
  knex: Knex;
  tasks: TaskList;
  logger: Logger;
  now: () => number;
  pollIntervalMs?: number;
  /** How long a claimed job stays invisible to other claims; a crashed run is retried after it. */
  leaseMs?: number;
  /** Jobs at once while running in the background; `drain()` (tests, one-off runs) takes them one at a time. */
  concurrency?: number;
  /** Whether a failure is an outage outside Paygate: retried after OUTAGE_RETRY_MS, its attempt not spent. */
  isOutage?: (err: unknown) => boolean;
}

/** graphile-worker's backoff: exp(min(attempts, 10)) seconds. */
export function retryDelayMs(attempts: number): number {
  return Math.round(Math.exp(Math.min(attempts, 10)) * 1000);
}

/**
 * The embedded job runner: jobs live in the `jobs` table, so a restart loses none, and the same task functions
 * run as on graphile-worker. One process owns an SQLite file, so claims need no cross-process locking beyond the
 * lease that protects against a run that crashed.
 */
export function createSqliteQueue(options: SqliteQueueOptions): JobQueue {
  const { knex, tasks, logger, now } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const concurrency = options.concurrency ?? DEFAULT_JOB_CONCURRENCY;
  let timer: NodeJS.Timeout | null = null;
  /** What `drain()` waits for first: the previous drain. */
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;
  /** Jobs running in this process: never claimed again here, even once their lease has passed. */
  const runningIds = new Set<number>();

  async function claim(): Promise<JobRow | null> {
    const t = now();
    const rows = (await knex.raw(
      `UPDATE jobs SET attempts = attempts + 1, locked_until = ?
       WHERE id = (SELECT id FROM jobs WHERE run_at <= ? AND attempts < max_attempts
                   AND (locked_until IS NULL OR locked_until < ?)
                   AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY run_at, id LIMIT 1)
       RETURNING id, task, payload, attempts, max_attempts`,
      [t + leaseMs, t, t, JSON.stringify([...runningIds])],
    )) as JobRow[];
    const job = rows[0] ?? null;
    if (job) runningIds.add(job.id);
    return job;
  }

  async function run(job: JobRow): Promise<void> {
    try {
      await runClaimed(job);
    } finally {
      runningIds.delete(job.id);
    }
  }

  async function runClaimed(job: JobRow): Promise<void> {
    const task = tasks[job.task];
    const started = Date.now();
    try {
      if (!task) throw new Error(`no task named ${job.task}`);
      const outcome = await task(JSON.parse(job.payload), { logger, now, attempt: job.attempts });
      await knex('jobs').where({ id: job.id }).delete();
      logger[completedLevel(outcome)](
        { job: job.id, task: job.task, attempt: job.attempts, ms: Date.now() - started },
        'job completed',
      );
    } catch (err) {
      const outage = options.isOutage?.(err) ?? false;
      await knex('jobs')
        .where({ id: job.id })
        .update({
          locked_until: null,
          run_at: now() + (outage ? OUTAGE_RETRY_MS : retryDelayMs(job.attempts)),
          last_error: String((err as Error)?.message ?? err).slice(0, 2000),
          ...(outage ? { attempts: job.attempts - 1 } : {}),
        });
      const line = { job: job.id, task: job.task, attempt: job.attempts, ms: Date.now() - started, err };
      if (outage) logger.warn(line, 'job postponed: a chain does not answer');
      else logger.error(line, 'job failed');
    }
  }

  async function runOne(): Promise<boolean> {
    const job = await claim();
    if (!job) return false;
    await run(job);
    return true;
  }

  async function drain(): Promise<number> {
    let count = 0;
    while (await runOne()) count++;
    return count;
  }

  /**
   * In the background, loops take due jobs one after another, up to `concurrency` of them: each poll starts one
   * when a slot is free (so an empty queue costs one claim per poll), and each job a loop finds lets another start,
   * so a backlog fills every slot at once. A slow job (a webhook attempt waiting on its receiver) holds up only its
   * own slot. Loops check `stopped` between jobs, so stop() waits for the running jobs only.
   */
  const loops = new Set<Promise<void>>();
  function startLoop(): void {
    const loop: Promise<void> = (async () => {
      try {
        while (!stopped) {
          const job = await claim();
          if (!job) return;
          if (loops.size < concurrency) startLoop();
          await run(job);
        }
      } catch (err) {
        logger.error({ err }, 'job runner poll failed');
      }
    })().finally(() => loops.delete(loop));
    loops.add(loop);
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      if (loops.size < concurrency) startLoop();
      schedule();
    }, pollIntervalMs);
  }

  return {
    async add(trx, task, payload, opts: AddJobOptions = {}) {
      const row = {
        task,
        payload: JSON.stringify(payload),
        job_key: opts.jobKey ?? null,
        run_at: opts.runAt ?? now(),
        max_attempts: opts.maxAttempts ?? 25,
        attempts: 0,
        created_at: now(),
      };
      if (opts.jobKey) {
        // graphile-worker's semantics: a running job keeps running but gives its key up, so the new one is not
        // merged into a row that is about to be deleted on completion.
        await trx('jobs')
          .where({ job_key: opts.jobKey })
          .andWhere('locked_until', '>=', now())
          .update({ job_key: null });
        await trx('jobs').insert(row).onConflict('job_key').merge(['payload', 'run_at', 'max_attempts', 'attempts']);
      } else {
        await trx('jobs').insert(row);
      }
    },
    async start() {
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.all([running, ...loops]);
    },
    drain: () => {
      const next = running.then(() => Promise.all(loops)).then(() => drain());
      running = next.catch(() => undefined);
      return next;
    },
  };
}
