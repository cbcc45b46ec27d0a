/**
 * The job runner (graphile-worker, jobs/postgres.ts) through a PostgreSQL outage, as the rehearsal's step 3 stops
 * PostgreSQL under traffic: the runner reaches the database through a TCP link that the test cuts (connections
 * reset, new ones refused, as when PostgreSQL is down) and restores on the same port. A job that fails while the
 * database is unreachable cannot have its failure recorded: graphile-worker's unbatched call for it rejected with
 * nobody awaiting it (an unhandled rejection, which ends a Node process: every API process died in the rehearsal),
 * and its worker pool shut down for good. The queue must keep the process alive and start a new runner once the
 * database answers again, with no process restart.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { openDatabase, type Database } from '../../server/src/db/connect.js';
import { createPostgresQueue } from '../../server/src/jobs/postgres.js';
import type { JobQueue } from '../../server/src/jobs/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';
import { TcpLink } from '../helpers/tcpLink.js';
import { eventually } from '../helpers/wait.js';

describe('jobs.postgres queue through a database outage [postgres]', function () {
  this.timeout(60_000);
  let test: TestDatabase;
  let db: Database;
  let queue: JobQueue | null = null;
  let link: TcpLink;

  before(async () => {
    test = await createTestDatabase('postgres');
    const url = new URL(test.url);
    link = new TcpLink({ host: url.hostname, port: Number(url.port) });
    await link.open();
    url.port = String(link.port);
    db = openDatabase(url.toString(), { poolMax: 2 });
  });
  after(async () => {
    await queue?.stop();
    await link.cut();
    await db?.close();
    await test.drop();
  });

  it('a job that fails while PostgreSQL is unreachable: no unhandled rejection, and a new runner runs the next job once it answers', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    let counted = 0;
    // In production an unhandled rejection ends the process (Node's default); mocha only reports it.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      queue = createPostgresQueue({
        db,
        tasks: {
          hold: async () => {
            started = true;
            await released;
            // What a job that reads or writes our tables does while PostgreSQL is down.
            throw new Error('the database went away');
          },
          count: async () => void counted++,
        },
        logger: pino({ level: 'silent' }),
        now: testClock().now,
        pollIntervalMs: 100,
      });
      await queue.add(test.db.knex, 'hold', {}, { maxAttempts: 1 });
      await queue.start();
      await eventually('the held job running', () => started);

      // PostgreSQL "goes away" while the job runs; the job then fails, and its failure cannot be recorded yet.
      await link.cut();
      release();
      // The outage lasts a few seconds; an unrecorded failure shows up as an unhandled rejection within it.
      await eventually('an unhandled rejection while PostgreSQL is away', () => unhandled.length > 0, {
        timeoutMs: 3_000,
      }).catch(() => undefined);
      await link.open();

      await queue.add(test.db.knex, 'count', {});
      await eventually('the next job run', () => counted === 1);
      assert.deepEqual(unhandled.map(String), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
