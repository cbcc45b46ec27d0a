import type { Knex } from 'knex';
import type { Logger } from 'pino';

export interface TaskContext {
  logger: Logger;
  /** Milliseconds since the epoch, from the injected clock. */
  now(): number;
  attempt: number;
}

/**
 * What a task may answer: `IDLE` when it found nothing to do (a recurring poll that saw nothing), so that the
 * queue logs its completion at debug instead of info and a quiet server's log stays quiet.
 */
export const IDLE = 'idle';
export type TaskOutcome = void | typeof IDLE;

/** Tasks are idempotent: a job may run more than once (a crash after the work, before the completion). */
export type Task = (payload: unknown, ctx: TaskContext) => Promise<TaskOutcome>;

/** The level of a completed job's log line, the same on both engines. */
export const completedLevel = (outcome: TaskOutcome): 'debug' | 'info' => (outcome === IDLE ? 'debug' : 'info');
export type TaskList = Record<string, Task>;

/**
 * How soon a job that failed on an outage outside Paygate (a chain's RPC endpoints not answering) runs again. Such a
 * failure is not the task's defect: its attempts are not spent and its backoff does not grow, so the money it moves
 * or watches moves on its own within seconds of the outage's end (docs/decisions.md §27.21).
 */
export const OUTAGE_RETRY_MS = 5_000;

export interface AddJobOptions {
  /** Jobs with the same key collapse into one (graphile-worker's job_key semantics). */
  jobKey?: string;
  runAt?: number;
  maxAttempts?: number;
}

/** The one job interface both engines implement; callers add jobs inside the transaction of the state change. */
export interface JobQueue {
  add(
    trx: Knex | Knex.Transaction,
    task: string,
    payload: Record<string, unknown>,
    options?: AddJobOptions,
  ): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs every job that is due until none is left (tests and the CLI use it). */
  drain(): Promise<number>;
}

/** Checks a job payload's shape; tasks receive `unknown` because a queue row can hold anything. */
export function assertPayload<T extends Record<string, unknown>>(
  payload: unknown,
  keys: (keyof T & string)[],
  task: string,
): asserts payload is T {
  if (typeof payload !== 'object' || payload === null) throw new Error(`${task}: payload is not an object`);
  for (const key of keys) {
    if (!(key in payload)) throw new Error(`${task}: payload lacks ${key}`);
  }
}

/**
 * Jobs at once per process, on both engines. Most jobs are webhook attempts, which wait on the merchant's server for
 * up to the 15 s timeout: with a handful of slots, a few slow or dead endpoints would hold up every other merchant's
 * deliveries, and the settlements and relays queued behind them (docs/decisions.md §13).
 */
export const DEFAULT_JOB_CONCURRENCY = 16;
