import type { Database } from '../connect.js';
import { dialectOf } from '../dialect.js';

export interface QueueDepth {
  /** Due and unclaimed: waiting for a worker. A steady rise means the workers do not keep up. */
  ready: number;
  running: number;
  /** Due later (retries with backoff, delayed work). */
  scheduled: number;
  /** Out of attempts; kept for inspection, never run again. */
  failed: number;
}

interface Counts {
  ready: number | string | null;
  running: number | string | null;
  scheduled: number | string | null;
  failed: number | string | null;
}

const toDepth = (row: Counts | undefined): QueueDepth => ({
  ready: Number(row?.ready ?? 0),
  running: Number(row?.running ?? 0),
  scheduled: Number(row?.scheduled ?? 0),
  failed: Number(row?.failed ?? 0),
});

/**
 * The job queue by state: our `jobs` table on SQLite (jobs/sqlite.ts), graphile-worker's on PostgreSQL
 * (jobs/postgres.ts). Here rather than in jobs/, because which table holds the jobs follows from the database.
 */
export async function queueDepth(db: Database, now: number): Promise<QueueDepth> {
  if (dialectOf(db) === 'sqlite') {
    const rows = (await db.knex.raw(
      `SELECT
         SUM(CASE WHEN attempts >= max_attempts THEN 1 ELSE 0 END) AS failed,
         SUM(CASE WHEN attempts < max_attempts AND locked_until >= ? THEN 1 ELSE 0 END) AS running,
         SUM(CASE WHEN attempts < max_attempts AND (locked_until IS NULL OR locked_until < ?) AND run_at <= ?
             THEN 1 ELSE 0 END) AS ready,
         SUM(CASE WHEN attempts < max_attempts AND (locked_until IS NULL OR locked_until < ?) AND run_at > ?
             THEN 1 ELSE 0 END) AS scheduled
       FROM jobs`,
      [now, now, now, now, now],
    )) as Counts[];
    return toDepth(rows[0]);
  }
  // graphile-worker keeps a job locked for 4 hours after its worker dies, so a lock is "running" only that long.
  const result = (await db.knex.raw(
    `SELECT
       COUNT(*) FILTER (WHERE attempts >= max_attempts) AS failed,
       COUNT(*) FILTER (WHERE attempts < max_attempts AND locked_at > now() - interval '4 hours') AS running,
       COUNT(*) FILTER (WHERE attempts < max_attempts AND (locked_at IS NULL OR locked_at <= now() - interval '4 hours')
                          AND run_at <= now()) AS ready,
       COUNT(*) FILTER (WHERE attempts < max_attempts AND (locked_at IS NULL OR locked_at <= now() - interval '4 hours')
                          AND run_at > now()) AS scheduled
     FROM graphile_worker.jobs`,
  )) as { rows: Counts[] };
  return toDepth(result.rows[0]);
}
