/**
 * The job runner's LISTEN connection when a runner is shut down while PostgreSQL stops answering (docs/decisions.md
 * §29.23). graphile-worker gives its listening client back to the pool twice when the shutdown's UNLISTEN and the
 * failure of a LISTEN still in flight meet: the second release throws inside an async function nobody awaits, an
 * unhandled rejection, and Node ends the process with code 1 (one API process of the short rehearsal's step 3).
 * The pool's clients must survive a second release.
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

/** A logger whose lines the test can wait for, and act on the moment one is written. */
function recordingLogger(onLine: (line: string) => void = () => undefined): {
  logger: Logger;
  said: (text: string) => boolean;
} {
  const lines: string[] = [];
  const write = (line: string) => {
    lines.push(line);
    onLine(line);
  };
  const logger = pino({ level: 'debug' }, { write }) as unknown as Logger;
  return { logger, said: (text) => lines.some((l) => l.includes(text)) };
}

describe('ops.jobs listening connection released twice [postgres]', function () {
  this.timeout(180_000);
  let test: TestDatabase;
  let db: Database;
  let link: TcpLink;
  let queue: JobQueue | null = null;

  before(async () => {
    test = await createTestDatabase('postgres');
    link = await TcpLink.openTo(test.url);
    db = openDatabase(TcpLink.urlThrough(test.url, link), { poolMax: 2 });
  });
  after(async () => {
    await link.cut();
    await queue?.stop().catch(() => undefined);
    await db?.close();
    await test.drop();
  });

  it('a runner stopped while its LISTEN waits for an answer, then the connection lost: no unhandled rejection, and jobs run again', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    // graphile-worker says it is connected in the same turn as it sends LISTEN, before PostgreSQL can answer it:
    // frozen then, the answer never comes.
    let froze = false;
    const { logger, said } = recordingLogger((line) => {
      if (froze || !line.includes('Worker connected and looking for jobs')) return;
      froze = true;
      link.freeze();
    });
    let counted = 0;
    const countingQueue = () =>
      createPostgresQueue({
        db,
        tasks: { count: async () => void counted++ },
        logger,
        now: testClock().now,
        pollIntervalMs: 100,
      });
    try {
      queue = countingQueue();
      await queue.start();
      await eventually('the LISTEN sent', () => said('Worker connected and looking for jobs'));
      // The shutdown gives the listening client back (its UNLISTEN waits behind the LISTEN)…
      const stopping = queue.stop();
      await eventually('the runner stopping', () => said('Runner stopping'));
      // …and then the connection is lost: the LISTEN fails, and its handler gives the same client back again.
      await link.cut();
      await stopping.catch(() => undefined);
      queue = null;
      await link.open();
      await eventually('rejections to surface', () => said('Error occurred attempting to UNLISTEN'), {
        timeoutMs: 20_000,
      });
      // Node reports an unhandled rejection after the microtasks of the turn that made it: one more turn.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled.map(String), []);
      // The race did happen: the second release was made, and ignored.
      assert.ok(said('a job connection was given back twice'), 'the listening client was given back twice');

      queue = countingQueue();
      await queue.start();
      await queue.add(test.db.knex, 'count', {});
      await eventually('the next job run', () => counted === 1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
