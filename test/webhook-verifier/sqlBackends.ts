import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sqlStoreSchema, type SqlDialect, type SqlQuery } from '@paygate/webhook-verifier';

/** A fresh database with the store's schema, reached through the kind of `query` function a user would pass. */
export interface SqlBackend {
  dialect: SqlDialect;
  query: SqlQuery;
  /** Most statements that were in flight at once, to show that concurrent calls did overlap. */
  maxInFlight(): number;
  rows<T>(sql: string): Promise<T[]>;
  /** Runs a script of statements without parameters, as a migration tool would. */
  exec(sql: string): Promise<void>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const TABLES = ['paygate_webhook_events', 'paygate_webhook_payment_versions', 'paygate_webhook_fulfilments'];

function counting(run: SqlQuery) {
  let inFlight = 0;
  let max = 0;
  const query: SqlQuery = async (sql, params) => {
    inFlight += 1;
    max = Math.max(max, inFlight);
    try {
      return await run(sql, params);
    } finally {
      inFlight -= 1;
    }
  };
  return { query, maxInFlight: () => max };
}

/** SQLite in a temporary file. better-sqlite3 is synchronous, so the query yields first to let calls interleave. */
export async function openSqlite(): Promise<SqlBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-webhook-verifier-'));
  const db = new Database(join(dir, 'store.db'));
  db.pragma('journal_mode = WAL');
  db.exec(sqlStoreSchema('sqlite'));
  const { query, maxInFlight } = counting(async (sql, params) => {
    await new Promise((resolve) => setImmediate(resolve));
    return db.prepare(sql).all(...params);
  });
  return {
    dialect: 'sqlite',
    query,
    maxInFlight,
    rows: async <T>(sql: string) => db.prepare(sql).all() as T[],
    exec: async (sql) => void db.exec(sql),
    reset: async () => {
      for (const table of TABLES) db.exec(`DELETE FROM ${table}`);
    },
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new database on the suite's throwaway PostgreSQL (test/setup.ts), used through a pool of real connections. */
export async function openPostgres(): Promise<SqlBackend> {
  const adminUrl = process.env.PAYGATE_TEST_POSTGRES_URL;
  if (!adminUrl) throw new Error('PAYGATE_TEST_POSTGRES_URL is unset: run the suite through mocha (test/setup.ts)');
  const name = `paygate_wv_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 10 });
  await pool.query(sqlStoreSchema('postgres'));
  const { query, maxInFlight } = counting(async (sql, params) => (await pool.query(sql, params)).rows);
  return {
    dialect: 'postgres',
    query,
    maxInFlight,
    rows: async <T>(sql: string) => (await pool.query(sql)).rows as T[],
    exec: async (sql) => void (await pool.query(sql)),
    reset: async () => {
      await pool.query(`TRUNCATE ${TABLES.join(', ')}`);
    },
    close: async () => {
      await pool.end();
      await admin(`DROP DATABASE ${name}`);
    },
  };
}

export const sqlBackends: [string, () => Promise<SqlBackend>][] = [
  ['SQLite', openSqlite],
  ['PostgreSQL', openPostgres],
];
