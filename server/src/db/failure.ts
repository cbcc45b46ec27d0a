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
 * Whether the database server answered the statement with an error, which proves none of it happened (a statement is
 * atomic); a lost connection or a timeout does not: a statement that commits on its own may have committed.
 */
export function refusedByServer(err: unknown): boolean {
  return err instanceof pg.DatabaseError;
}
