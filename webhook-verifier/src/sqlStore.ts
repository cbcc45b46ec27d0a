import type { EventStore } from './processor.js';

export type SqlDialect = 'postgres' | 'sqlite';

/** Runs one parameterised statement and resolves to its result rows (every statement here has RETURNING). */
export type SqlQuery = (sql: string, params: unknown[]) => Promise<readonly unknown[]>;

export interface SqlStoreOptions {
  query: SqlQuery;
  /** `postgres` (>= 9.5) uses `$1` placeholders, `sqlite` (>= 3.35) uses `?`. */
  dialect: SqlDialect;
  /** Milliseconds since the epoch, stored with each event id for `pruneEvents`. Default `Date.now`. */
  now?: () => number;
}

export interface SqlStore extends EventStore {
  /** Deletes event-id records received before `before`; returns how many. Version and fulfilment records stay. */
  pruneEvents(before: Date): Promise<number>;
}

// BIGINT is valid in both dialects (SQLite gives it INTEGER affinity), so one schema serves both today.
const SCHEMA = `CREATE TABLE IF NOT EXISTS paygate_webhook_events (
  event_id TEXT PRIMARY KEY,
  received_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS paygate_webhook_events_received_at ON paygate_webhook_events (received_at);
CREATE TABLE IF NOT EXISTS paygate_webhook_payment_versions (
  payment_id TEXT PRIMARY KEY,
  version BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS paygate_webhook_fulfilments (
  payment_id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL,
  fulfilled_at BIGINT NOT NULL
);
`;

/** DDL for the three tables `sqlStore` uses; idempotent, run it with your migrations. */
export function sqlStoreSchema(dialect: SqlDialect): string {
  assertDialect(dialect);
  return SCHEMA;
}

// Each statement decides on its own, atomically, whether this caller changed the state; the answer is whether a
// row came back. Parameters appear in order, so Postgres `$n` maps onto SQLite `?` one for one.
const STATEMENTS = {
  claimEvent: `INSERT INTO paygate_webhook_events (event_id, received_at) VALUES ($1, $2)
ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
  releaseEvent: `DELETE FROM paygate_webhook_events WHERE event_id = $1 RETURNING event_id`,
  advanceVersion: `INSERT INTO paygate_webhook_payment_versions (payment_id, version) VALUES ($1, $2)
ON CONFLICT (payment_id) DO UPDATE SET version = excluded.version
WHERE paygate_webhook_payment_versions.version < excluded.version RETURNING payment_id`,
  rewindVersion: `UPDATE paygate_webhook_payment_versions SET version = version - 1
WHERE payment_id = $1 AND version = $2 RETURNING payment_id`,
  markSucceeded: `INSERT INTO paygate_webhook_fulfilments (payment_id, event_id, fulfilled_at) VALUES ($1, $2, $3)
ON CONFLICT (payment_id) DO NOTHING RETURNING payment_id`,
  releaseSucceeded: `DELETE FROM paygate_webhook_fulfilments WHERE payment_id = $1 AND event_id = $2 RETURNING payment_id`,
  pruneEvents: `DELETE FROM paygate_webhook_events WHERE received_at < $1 RETURNING event_id`,
} as const;

/**
 * An EventStore on your own database connection, safe under concurrent deliveries across processes. It brings no
 * driver: pass a `query` that runs one statement with positional parameters and returns the rows, e.g.
 * `(sql, params) => pool.query(sql, params).then((r) => r.rows)` for node-postgres, or
 * `async (sql, params) => db.prepare(sql).all(...params)` for better-sqlite3.
 */
export function sqlStore(options: SqlStoreOptions): SqlStore {
  const { query, dialect } = options;
  assertDialect(dialect);
  const now = options.now ?? Date.now;
  const sql = Object.fromEntries(
    Object.entries(STATEMENTS).map(([name, text]) => [name, dialect === 'sqlite' ? text.replace(/\$\d+/g, '?') : text]),
  ) as Record<keyof typeof STATEMENTS, string>;
  const changed = async (text: string, params: unknown[]): Promise<boolean> => (await query(text, params)).length > 0;

  return {
    claimEvent: (eventId) => changed(sql.claimEvent, [eventId, now()]),
    releaseEvent: async (eventId) => {
      await query(sql.releaseEvent, [eventId]);
    },
    advanceVersion: (paymentId, version) => changed(sql.advanceVersion, [paymentId, version]),
    rewindVersion: async (paymentId, version) => {
      await query(sql.rewindVersion, [paymentId, version]);
    },
    markSucceeded: (paymentId, eventId) => changed(sql.markSucceeded, [paymentId, eventId, now()]),
    releaseSucceeded: async (paymentId, eventId) => {
      await query(sql.releaseSucceeded, [paymentId, eventId]);
    },
    pruneEvents: async (before) => (await query(sql.pruneEvents, [before.getTime()])).length,
  };
}

function assertDialect(dialect: string): void {
  if (dialect !== 'postgres' && dialect !== 'sqlite') {
    throw new TypeError(`Unsupported SQL dialect ${JSON.stringify(dialect)}; use "postgres" or "sqlite"`);
  }
}
