import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { dialectOf, type Dialect } from './dialect.js';
import { BACKSTOP_PAGES, startWalCheckpointer } from './walCheckpointer.js';

export type { Dialect } from './dialect.js';

export interface Database {
  knex: Knex;
  url: string;
  /** Read through db/dialect.ts (`dialectOf`, and outside db/ only its capabilities such as `isEmbedded`). */
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

/**
 * A statement that runs on every request of a hot path, as one fixed statement (`?` placeholders) prepared once per
 * connection: by name on PostgreSQL, by text on SQLite (below). It runs on a connection of the knex pool, or of the
 * transaction it is given, without knex's query builder and runner, which cost more than such a statement; so knex's
 * query events and SQL-prefixed error messages do not apply to it. A named statement's columns are listed, so a
 * column added by a later migration cannot change a cached plan's result. `db` may be a transaction, whose
 * connection it then uses.
 */
export function preparedReadAll<Row>(
  name: string,
  sql: string,
): (db: Knex | Knex.Transaction, values: unknown[]) => Promise<Row[]> {
  let n = 0;
  const pgText = sql.replace(/\?/g, () => `$${++n}`);
  return (db, values) =>
    onConnection(db, name, async (conn) => {
      if (dialectOf(db) === 'postgres') return (await conn.query({ name, text: pgText, values })).rows as Row[];
      return conn.prepare(sql).all(sqliteValues(values)) as Row[];
    });
}

/** As knex binds them: SQLite has no booleans. */
export function sqliteValues(values: unknown[]): unknown[] {
  return values.map((v) => (typeof v === 'boolean' ? Number(v) : v));
}

/** Runs `work` on a connection of the knex pool, or on the connection of the transaction `db` is. */
async function onConnection<T>(
  db: Knex | Knex.Transaction,
  name: string,
  work: (conn: PgConnection & BetterSqlite3.Database) => Promise<T>,
): Promise<T> {
  // What knex refuses too: the connection of a finished transaction may be someone else's by now.
  if ('isCompleted' in db && db.isCompleted()) throw new Error(`${name}: the transaction is already complete.`);
  const client = db.client as Knex.Client;
  const conn = (await client.acquireConnection()) as PgConnection & BetterSqlite3.Database;
  try {
    return await work(conn);
  } finally {
    await client.releaseConnection(conn);
  }
}

/**
 * Runs `work` with the SQLite connection of `db` (a transaction's own when `db` is one), for a hot path's fixed
 * statements: `conn.prepare` hands out the statement prepared once per text (below), so they run without knex's
 * query builder and runner. `db` must be an SQLite database.
 */
export function onSqliteConnection<T>(
  db: Knex | Knex.Transaction,
  name: string,
  work: (conn: BetterSqlite3.Database) => T,
): Promise<T> {
  return onConnection(db, name, async (conn) => work(conn));
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Prepared statements kept per SQLite connection; a few texts vary with their input (lists of ids), so a bound. */
const STATEMENTS_PER_CONNECTION = 500;

/**
 * knex hands better-sqlite3 the SQL text of every query to prepare anew, which costs about as much as running a
 * small indexed read. The query functions issue a fixed set of texts, so the connection keeps what it prepared by
 * text and knex binds and runs the same statement on every call. knex runs each statement to completion
 * (`all` or `run`, never an iterator), so a statement is never in use when it is handed out again.
 */
function reusePreparedStatements(conn: BetterSqlite3.Database): void {
  const prepare = conn.prepare.bind(conn);
  const statements = new Map<string, BetterSqlite3.Statement>();
  conn.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      // Insertion order is age: the oldest text goes first.
      if (statements.size >= STATEMENTS_PER_CONNECTION) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
    }
    return statement;
  }) as BetterSqlite3.Database['prepare'];
}

/** How long a query waits for the SQLite connection before it fails (knex's default for its pools). */
const ACQUIRE_TIMEOUT_MS = 60_000;

/**
 * The pool of an SQLite database (knex's `connectionPool`): its one connection, lent to one query or transaction at
 * a time, in the order they asked. better-sqlite3 is synchronous and SQLite has one writer anyway, so one connection
 * is all there is to pool, and tarn's general pool (a timer, events and several promise turns per acquire) cost
 * more per query than a small read takes. The connection opens on first use, so a file that cannot be opened fails
 * the first query (the migration) as before.
 */
export class SqliteConnection {
  private connection: BetterSqlite3.Database | null = null;
  private lent = false;
  private closed = false;
  /** Called when the connection comes back while closing. */
  private returned: (() => void) | null = null;
  private readonly waiting: { resolve: (c: BetterSqlite3.Database) => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly open: () => BetterSqlite3.Database) {}

  acquire(): { promise: Promise<BetterSqlite3.Database> } {
    if (this.closed) return { promise: Promise.reject(new Error('The database is closed.')) };
    if (!this.lent) {
      try {
        this.connection ??= this.open();
      } catch (err) {
        return { promise: Promise.reject(err as Error) };
      }
      this.lent = true;
      return { promise: Promise.resolve(this.connection) };
    }
    return {
      promise: new Promise((resolve, reject) => {
        const waiter = {
          resolve: (c: BetterSqlite3.Database) => {
            clearTimeout(timer);
            resolve(c);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        const timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new Error(`Timed out after ${ACQUIRE_TIMEOUT_MS} ms waiting for the database connection.`));
        }, ACQUIRE_TIMEOUT_MS);
        this.waiting.push(waiter);
      }),
    };
  }

  /** Hands the connection straight to the next in line, so nobody can slip in between. */
  release(connection: BetterSqlite3.Database): boolean {
    if (!this.lent || connection !== this.connection) return false;
    const next = this.waiting.shift();
    if (next) next.resolve(connection);
    else {
      this.lent = false;
      this.returned?.();
    }
    return true;
  }

  /** As tarn does: no new borrower, the current one finishes (a transaction commits or rolls back), then it closes. */
  async destroy(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('The database is closed.'));
    if (this.lent) await new Promise<void>((resolve) => (this.returned = resolve));
    this.connection?.close();
    this.connection = null;
  }

  // What knex reads of a tarn pool.
  numUsed(): number {
    return this.lent ? 1 : 0;
  }
  numFree(): number {
    return this.connection && !this.lent ? 1 : 0;
  }
  numPendingAcquires(): number {
    return this.waiting.length;
  }
}

/**
 * The page cache of every SQLite connection, in KiB: an upper bound that fills only as pages are read, per
 * connection (one per process, docs/decisions.md §24.17). better-sqlite3 builds SQLite with 16,000 KiB; past a few
 * hundred thousand payments a write's index pages no longer fit in it and each write rereads them from the file.
 */
export const SQLITE_CACHE_KIB = 64 * 1024;

function openSqlite(filename: string, checkpointsElsewhere: boolean, cacheKiB: number): BetterSqlite3.Database {
  const conn = new BetterSqlite3(filename);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  // Negative: a size in KiB rather than in pages, whatever the page size.
  conn.pragma(`cache_size = ${-Math.trunc(cacheKiB)}`);
  conn.pragma('foreign_keys = ON');
  conn.pragma('busy_timeout = 5000');
  if (checkpointsElsewhere) conn.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  reusePreparedStatements(conn);
  return conn;
}

/** Opens the database a `DATABASE_URL` names: `sqlite:<path>` (embedded default) or `postgres://…`. */
export function openDatabase(
  databaseUrl: string,
  options: {
    poolMax?: number;
    logger?: Logger;
    /** An embedded database's log is checkpointed by a worker thread (db/walCheckpointer.ts): the long-lived processes. */
    backgroundCheckpoints?: boolean;
    /** An embedded database's page cache in KiB, SQLITE_CACHE_KIB unless given (the scale bench compares sizes). */
    sqliteCacheKiB?: number;
  } = {},
): Database {
  if (dialectOf(databaseUrl) === 'sqlite') {
    const filename = databaseUrl.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    const logger = options.logger;
    const checkpointer =
      options.backgroundCheckpoints && filename !== ':memory:'
        ? startWalCheckpointer(filename, {
            onError: (message) => logger?.warn({ component: 'sqlite', error: message }, 'log checkpoint failed'),
          })
        : null;
    // better-sqlite3 is synchronous: one connection serialises writers, which is what SQLite does anyway.
    const pool = new SqliteConnection(() =>
      openSqlite(filename, checkpointer !== null, options.sqliteCacheKiB ?? SQLITE_CACHE_KIB),
    );
    const knex = knexFactory({
      client: 'better-sqlite3',
      connectionPool: pool,
      useNullAsDefault: true,
      // A failed query's message carries its SQL with placeholders, never the bound values (personal data, sealed
      // values and hashes would otherwise reach the error log inside a message that redaction cannot see into).
      compileSqlOnError: false,
      log: knexLog(options.logger),
    });
    const close = async () => {
      await knex.destroy();
      // knex leaves a pool it was given to its owner.
      await pool.destroy();
      await checkpointer?.stop();
    };
    return { knex, url: databaseUrl, dialect: 'sqlite', close };
  }
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl, types: pgTypes } as Knex.PgConnectionConfig,
    pool: { min: 0, max: options.poolMax ?? 10 },
    compileSqlOnError: false,
    log: knexLog(options.logger),
  });
  return { knex, url: databaseUrl, dialect: 'postgres', close: () => knex.destroy() };
}
