/**
 * The PostgreSQL pool graphile-worker runs on, owned here rather than by graphile-worker. Given only a connection
 * string, graphile-worker makes a pool per `run` and per `runOnce`, and on release removes the pool's error handlers
 * before calling `pool.end()` without waiting for it. A connection still closing then has no handler: a server that
 * ends it (a restart, a failover, `DROP DATABASE … WITH (FORCE)`) raises an uncaught error and takes the process
 * down. This pool keeps its handlers for its whole life, and its owner awaits `end()`.
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** The connections' `application_name`: an operator tells the job connections apart in `pg_stat_activity`. */
export const JOB_POOL_APPLICATION = 'paygate-jobs';

/**
 * An idle job connection is closed after this long. The runner polls every second, so its connections are rarely idle
 * that long; `end()` closes them at once.
 */
export const JOB_POOL_IDLE_MS = 30_000;

/** Passed to graphile-worker as `pgPool`, which it never ends: its opener awaits `end()`. */
export function openJobPool(url: string, options: { max: number; logger?: Logger }): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    application_name: JOB_POOL_APPLICATION,
    idleTimeoutMillis: JOB_POOL_IDLE_MS,
  });
  // pg removes a failed client from the pool by itself; the handlers only keep its error from being uncaught.
  const report = (idle: boolean) => (err: Error) =>
    options.logger?.warn({ err, component: 'graphile-worker' }, `a job connection failed${idle ? ' while idle' : ''}`);
  pool.on('error', report(true));
  pool.on('connect', (client) => client.on('error', report(false)));
  return pool;
}

/** One connection of its own (not from a pool): its session-level state, such as advisory locks, lasts as it does. */
export type JobSession = pg.Client;

export function openJobSession(url: string, application: string): JobSession {
  return new pg.Client({ connectionString: url, application_name: application });
}
