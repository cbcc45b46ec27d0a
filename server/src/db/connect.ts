import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  knex: Knex;
  url: string;
  dialect: Dialect;
  close(): Promise<void>;
}

// int8 (bigint) columns hold millisecond timestamps and counters that fit a double; parse them as numbers on
// our own connections only, so graphile-worker's pool keeps its string job ids.
const PG_INT8 = 20;
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === PG_INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** knex's own warnings (a failed connection attempt, …) as log lines, instead of text on the console. */
function knexLog(logger: Logger | undefined): Knex.Config['log'] {
  if (!logger) return undefined;
  const line = (level: 'debug' | 'warn' | 'error') => (message: unknown) =>
    logger[level]({ component: 'knex' }, typeof message === 'string' ? message : JSON.stringify(message));
  return { debug: line('debug'), warn: line('warn'), error: line('error'), deprecate: line('warn') };
}

/** Opens the database a `DATABASE_URL` names: `sqlite:<path>` (embedded default) or `postgres://…`. */
export function openDatabase(databaseUrl: string, options: { poolMax?: number; logger?: Logger } = {}): Database {
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      log: knexLog(options.logger),
      // better-sqlite3 is synchronous: one connection serialises writers, which is what SQLite does anyway.
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          done(null, conn);
        },
      },
    });
    return { knex, url: databaseUrl, dialect: 'sqlite', close: () => knex.destroy() };
  }
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl, types: pgTypes } as Knex.PgConnectionConfig,
    pool: { min: 0, max: options.poolMax ?? 10 },
    log: knexLog(options.logger),
  });
  return { knex, url: databaseUrl, dialect: 'postgres', close: () => knex.destroy() };
}
