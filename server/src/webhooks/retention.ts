/**
 * Webhook retention (docs/decisions.md §24.3): attempts older than PAYGATE_WEBHOOK_RETENTION_DAYS are removed by a
 * job, in batches of `RETENTION_BATCH` rows, on the injected clock. The delivery stays, with its status, attempt count
 * and delivery time, marked `attempts_pruned_at` so the API says `attemptsPruned: true` rather than showing no
 * attempts as if none had been made. Outbox events are kept: they are the payment's history and what a replay sends.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pruneAttemptBatch } from '../db/queries/attemptRetention.js';
import { IDLE, type JobQueue, type TaskList } from '../jobs/types.js';

export const RETENTION_TASK = 'webhooks.retention';
/** Rows per statement: small enough that a batch holds its row locks for milliseconds. */
export const RETENTION_BATCH = 1000;
/** Batches per run; a run that reaches it queues the next one, so one job never holds a worker for long. */
const BATCHES_PER_RUN = 50;
/** How often each process queues a run (one job key: several processes make one run). */
export const RETENTION_INTERVAL_MS = 3_600_000;

export interface RetentionDeps {
  db: { knex: Knex };
  jobs: JobQueue;
  now(): number;
  logger: Logger;
  config: { webhookRetentionMs: number };
}

/** Removes what the window no longer keeps, batch by batch; answers the number of attempts removed. */
export async function pruneWebhookAttempts(
  deps: RetentionDeps,
  options: { batch?: number; maxBatches?: number } = {},
): Promise<{ removed: number; batches: number; done: boolean }> {
  const batch = options.batch ?? RETENTION_BATCH;
  const maxBatches = options.maxBatches ?? BATCHES_PER_RUN;
  const now = deps.now();
  const before = now - deps.config.webhookRetentionMs;
  let removed = 0;
  for (let batches = 0; batches < maxBatches;) {
    const n = await pruneAttemptBatch(deps.db.knex, before, now, batch);
    removed += n;
    if (n > 0) batches++;
    if (n < batch) return { removed, batches, done: true };
  }
  return { removed, batches: maxBatches, done: false };
}

export async function enqueueRetention(deps: RetentionDeps): Promise<void> {
  await deps.jobs.add(deps.db.knex, RETENTION_TASK, {}, { jobKey: RETENTION_TASK });
}

export function retentionTasks(deps: RetentionDeps): TaskList {
  return {
    [RETENTION_TASK]: async () => {
      const { removed, done } = await pruneWebhookAttempts(deps);
      if (removed === 0) return IDLE;
      deps.logger.info({ removed }, 'webhook attempts past the retention window removed');
      if (!done) await enqueueRetention(deps);
    },
  };
}
