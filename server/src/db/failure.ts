import pg from 'pg';

/** A URL fit for an error message: the password is never shown. */
function withoutPassword(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** One line that says which database could not be used and why (pg's AggregateError has an empty message). */
export function describeDatabaseFailure(url: string, err: unknown): Error {
  const e = err as { message?: string; code?: string; errors?: { message?: string }[] };
  const reason = e.message || e.errors?.[0]?.message || e.code || String(err);
  return new Error(`Cannot use the database DATABASE_URL names (${withoutPassword(url)}): ${reason}`, { cause: err });
}

/** A primary-key or unique violation, on SQLite or PostgreSQL: the loser of a race for the same id. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * SQLSTATE classes of errors that can end a session after its work committed: connection exceptions (08), operator
 * intervention such as a shutdown (57), system errors (58) and internal errors (XX, a PANIC among them).
 */
const SESSION_ENDING = /^(08|57|58|XX)/;

/**
 * Whether the database server refused the statement with an error that proves none of it happened (a statement is
 * atomic, and the statement's own error rolls it back); a lost connection, a timeout or an error that ends the
 * session do not: a statement that commits on its own may have committed.
 */
export function refusedByServer(err: unknown): boolean {
  return err instanceof pg.DatabaseError && !SESSION_ENDING.test(err.code ?? '');
}
