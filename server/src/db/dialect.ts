import { resolve } from 'node:path';
import type { Knex } from 'knex';

/**
 * Everything that differs between SQLite and PostgreSQL is decided in db/, by `dialectOf`; the modules outside db/
 * ask db/ for what they need (a query, or a capability such as `isEmbedded`) and never branch on the dialect
 * themselves (test/architecture/architecture.storage.dialect.test.ts).
 */
export type Dialect = 'sqlite' | 'postgres';

/**
 * The dialect of a database, of its knex instance or a transaction on it (all a query function is given), or of the
 * `DATABASE_URL` naming it: the one place that reads knex's client name or a URL's scheme.
 */
export function dialectOf(db: { dialect: Dialect } | Knex | Knex.Transaction | string): Dialect {
  // A URL is `sqlite:<path>` or `postgres://…`: parseDatabaseUrl refuses anything else.
  if (typeof db === 'string') return db.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  if (typeof db === 'function') return (db.client as Knex.Client).config.client === 'pg' ? 'postgres' : 'sqlite';
  return db.dialect;
}

/**
 * True when the database is a file this process owns alone (SQLite, the embedded default), false for a server that
 * several processes share (PostgreSQL). What follows from it outside db/: the job queue is an in-process runner
 * rather than one any process can serve, one transaction runs at a time (there is one connection), and a
 * development install may seed demo accounts into it, since it is a scratch file and not someone's installation.
 */
export function isEmbedded(db: { dialect: Dialect } | string): boolean {
  return dialectOf(db) === 'sqlite';
}

/**
 * `DATABASE_URL` as the configuration gives it, checked and with an SQLite path made absolute; unset, the embedded
 * database in the data directory. Throws an Error whose message completes "DATABASE_URL …".
 */
export function parseDatabaseUrl(raw: string | undefined, dataDir: string): string {
  if (raw === undefined) return `sqlite:${resolve(dataDir, 'paygate.sqlite')}`;
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      const u = new URL(raw);
      if (!u.hostname && !u.searchParams.get('host')) throw new Error('no host');
      return raw;
    } catch {
      throw new Error('is not a valid postgres:// URL');
    }
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new Error('names no SQLite file (use sqlite:<path>)');
    return path === ':memory:' ? 'sqlite::memory:' : `sqlite:${resolve(path)}`;
  }
  throw new Error(
    `must start with postgres://, postgresql:// or sqlite: (got "${raw.replace(/\/\/[^@]*@/, '//***@')}")`,
  );
}
