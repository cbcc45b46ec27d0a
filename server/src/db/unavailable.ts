/**
 * Whether an error means "the database cannot be reached right now" (PostgreSQL restarting, a failover, the network
 * to it down) rather than a fault of the request or of our code. The HTTP layer answers those 503 with
 * `internal_error` and `Retry-After`, as it answers a request timeout, so clients and the SDKs retry, instead of a
 * 500 that says our code is broken (docs/decisions.md §29.11).
 */

/** SQLSTATE classes and codes of a lost or refused connection: 08 (connection exception), 57P01–57P03 (shutdown). */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123])$/;
/** What node-postgres throws for a socket that ended under it, and knex for a pool that could hand out none. */
const MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'terminating connection due to administrator command',
];
/** A connect() that failed: raised by `net` for the database's address (node-postgres passes it on unchanged). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, name, message, syscall } = e as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      syscall?: unknown;
    };
    if (typeof code === 'string' && SQLSTATE.test(code)) return true;
    // Only the error itself: node-postgres throws the socket's error unchanged, while a fetch to a chain's RPC
    // endpoint wraps the same codes as its `cause` ("fetch failed"), and a chain is not the database.
    if (
      depth === 0 &&
      typeof code === 'string' &&
      SOCKET_CODES.has(code) &&
      (syscall === 'connect' || syscall === 'read')
    )
      return true;
    // knex: no connection could be acquired from the pool in time (every attempt to connect failed or hung).
    if (name === 'KnexTimeoutError') return true;
    // knex prefixes a failed query's message with its SQL (`<sql> - <message>`), so the driver's text is matched within.
    if (typeof message === 'string' && MESSAGES.some((m) => message.startsWith(m) || message.includes(` - ${m}`)))
      return true;
  }
  return false;
}
