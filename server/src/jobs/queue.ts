import type { Logger } from 'pino';
import type { Database } from '../db/connect.js';
import { isEmbedded } from '../db/dialect.js';
import { createPostgresQueue } from './postgres.js';
import { createSqliteQueue } from './sqlite.js';
import type { JobQueue, TaskList } from './types.js';

export interface JobQueueOptions {
  tasks: TaskList;
  logger: Logger;
  now: () => number;
  /** Jobs at once while running in the background (DEFAULT_JOB_CONCURRENCY). */
  concurrency?: number;
  pollIntervalMs?: number;
  /** Whether a task's failure is an outage outside Paygate, retried after OUTAGE_RETRY_MS (jobs/types.ts). */
  isOutage?: (err: unknown) => boolean;
}

/**
 * The job queue that fits the database: the in-process runner on an embedded database, which one process owns, and
 * graphile-worker on a shared one, so that any process (`paygate start` or `paygate worker`) can run the jobs.
 */
export function openJobQueue(db: Database, options: JobQueueOptions): JobQueue {
  return isEmbedded(db) ? createSqliteQueue({ ...options, knex: db.knex }) : createPostgresQueue({ ...options, db });
}
