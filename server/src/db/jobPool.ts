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

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * A pool whose clients may be given back twice. graphile-worker 0.17 does so with its LISTEN client when a runner
 * shuts down (its UNLISTEN) while a LISTEN is still unanswered and the connection is then lost (the LISTEN's failure
 * releases it again): pg-pool throws on the second release, inside an async function nobody awaits, and the
 * unhandled rejection ended the process (§29.23). The second release changes nothing here: the client went back
 * (or was removed) with the first, so it is only logged.
 */
class JobPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    private readonly logger: Logger | undefined,
  ) {
    super(config);
  }

  private guard(client: pg.PoolClient): pg.PoolClient {
    const release = client.release.bind(client);
    let released = false;
    client.release = (err?: Error | boolean) => {
      if (released) {
        this.logger?.warn(
          { component: 'graphile-worker' },
          'a job connection was given back twice; the second is ignored',
        );
        return;
      }
      released = true;
      return release(err);
    };
    return client;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (!callback) return super.connect().then((client) => this.guard(client));
    super.connect((err, client, done) => {
      if (!client) return callback(err, client, done);
      const guarded = this.guard(client);
      callback(err, guarded, (release?: unknown) => guarded.release(release as Error | boolean | undefined));
    });
  }
}

/** Passed to graphile-worker as `pgPool`, which it never ends: its opener awaits `end()`. */
export function openJobPool(url: string, options: { max: number; logger?: Logger }): pg.Pool {
  const pool = new JobPool(
    {
      connectionString: url,
      max: options.max,
      application_name: JOB_POOL_APPLICATION,
      idleTimeoutMillis: JOB_POOL_IDLE_MS,
    },
    options.logger,
  );
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
