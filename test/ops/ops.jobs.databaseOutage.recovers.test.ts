/**
 * The job runner (graphile-worker, jobs/postgres.ts) through a PostgreSQL outage, as the rehearsal's step 3 stops
 * PostgreSQL under traffic: the runner reaches the database through a TCP link that the test cuts (connections
 * reset, new ones refused, as when PostgreSQL is down) and restores on the same port. A job that fails while the
 * database is unreachable cannot have its failure recorded: graphile-worker's unbatched call for it rejected with
 * nobody awaiting it (an unhandled rejection, which ends a Node process: every API process died in the rehearsal),
 * and its worker pool shut down for good. The queue must keep the process alive and start a new runner once the
 * database answers again, with no process restart. The job that was running when it went away cannot have its end
 * recorded either: it stays locked by the stopped runner's workers, which graphile-worker frees only after 4 hours;
 * the queue frees them once that runner has ended and the database answers, so the job runs again (at least once).
 */
import assert from 'node:assert/strict';
import { pino, type Logger } from 'pino';
import { openDatabase, type Database } from '../../server/src/db/connect.js';
import { createPostgresQueue } from '../../server/src/jobs/postgres.js';
import type { JobQueue } from '../../server/src/jobs/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';
import { TcpLink } from '../helpers/tcpLink.js';
import { eventually } from '../helpers/wait.js';

/** A logger whose lines the test can wait for (the queue says when it replaces its runner). */
function recordingLogger(): { logger: Logger; said: (text: string) => boolean } {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) as unknown as Logger;
  return { logger, said: (text) => lines.some((l) => l.includes(text)) };
}

describe('jobs.postgres queue through a database outage [postgres]', function () {
  this.timeout(180_000);
  let test: TestDatabase;
  let db: Database;
  let queue: JobQueue | null = null;
  let link: TcpLink;

  before(async () => {
    test = await createTestDatabase('postgres');
    link = await TcpLink.openTo(test.url);
    db = openDatabase(TcpLink.urlThrough(test.url, link), { poolMax: 2 });
  });
  afterEach(async () => {
    await queue?.stop();
    queue = null;
  });
  after(async () => {
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
    const { logger, said } = recordingLogger();
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
        logger,
        now: testClock().now,
        pollIntervalMs: 100,
      });
      await queue.add(test.db.knex, 'hold', {}, { maxAttempts: 1 });
      await queue.start();
      await eventually('the held job running', () => started);

      // PostgreSQL "goes away" while the job runs; the job then fails, and its failure cannot be recorded yet.
      await link.cut();
      release();
      // The runner gives up on the unreachable database when it cannot record that failure: an unrecorded failure
      // shows up as an unhandled rejection by then.
      await eventually('the runner stopped by the outage', () => said('the job runner stopped on a database error'));
      await link.open();

      await queue.add(test.db.knex, 'count', {});
      await eventually('the next job run', () => counted === 1);
      assert.deepEqual(unhandled.map(String), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a job running when PostgreSQL goes away runs again once it answers, not after the 4-hour lock expiry', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const attempts: number[] = [];
    const { logger, said } = recordingLogger();
    queue = createPostgresQueue({
      db,
      tasks: {
        hold: async (_payload, ctx) => {
          attempts.push(ctx.attempt);
          // The first run ends while the database is away: its completion cannot be recorded.
          if (attempts.length === 1) await released;
        },
        // A job that fails while the database is away, so that the runner notices the outage at once.
        fail: async () => {
          await released;
          throw new Error('the database went away');
        },
      },
      logger,
      now: testClock().now,
      pollIntervalMs: 100,
    });
    await queue.add(test.db.knex, 'hold', {});
    await queue.add(test.db.knex, 'fail', {}, { maxAttempts: 1 });
    await queue.start();
    await eventually('the held job running', () => attempts.length === 1);

    await link.cut();
    release();
    await eventually('the runner stopped by the outage', () => said('the job runner stopped on a database error'));
    await link.open();

    await eventually('the held job run again', () => attempts.length === 2, { timeoutMs: 20_000 });
    await eventually(
      'no job left locked',
      async () => {
        const { rows } = (await test.db.knex.raw(
          'SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE locked_at IS NOT NULL',
        )) as { rows: { n: number }[] };
        return rows[0]!.n === 0;
      },
      { timeoutMs: 10_000 },
    );
  });
});
