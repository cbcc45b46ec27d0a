/**
 * graphile-worker's connections (db/jobPool.ts): one pool per queue, with error handlers for its whole life, closed
 * by `stop()`. Given only a connection string, graphile-worker dropped its handlers and left its pools closing after
 * each `runOnce`, so a server ending those connections then (here `DROP DATABASE … WITH (FORCE)`) raised an uncaught
 * error in whatever ran next.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { JOB_POOL_APPLICATION, JOB_POOL_IDLE_MS } from '../../server/src/db/jobPool.js';
import { createPostgresQueue } from '../../server/src/jobs/postgres.js';
import type { JobQueue } from '../../server/src/jobs/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';
import { eventually } from '../helpers/wait.js';

describe('jobs.postgres queue connections [postgres]', () => {
  let test: TestDatabase;
  let queue: JobQueue;
  let ran: number;
  let warnings: string[];

  before(async () => {
    test = await createTestDatabase('postgres');
  });
  after(() => test.drop());

  beforeEach(() => {
    ran = 0;
    warnings = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) },
    );
    queue = createPostgresQueue({
      db: test.db,
      tasks: { count: async () => void ran++ },
      logger,
      now: testClock().now,
    });
  });
  afterEach(() => queue.stop());

  /** The job connections the server holds for this test's database. */
  const jobConnections = async () => {
    const { rows } = (await test.db.knex.raw(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?',
      [JOB_POOL_APPLICATION],
    )) as { rows: { pid: number }[] };
    return rows.map((r) => r.pid);
  };

  it('stop: every job connection is closed when it resolves', async () => {
    await queue.add(test.db.knex, 'count', {});
    assert.equal(await queue.drain(), 1);
    await queue.add(test.db.knex, 'count', {});
    assert.equal(await queue.drain(), 1);
    const pids = await jobConnections();
    assert.ok(pids.length > 0, 'the drains share one open pool');
    await queue.stop();
    // The server's backends leave its activity view a moment after the connections close; an idle connection would
    // stay for JOB_POOL_IDLE_MS, so a wait bounded well below that tells the two apart.
    await eventually('the job connections gone', async () => (await jobConnections()).length === 0, {
      timeoutMs: JOB_POOL_IDLE_MS / 3,
    });
  });

  it('a job connection the server ends is reported and replaced, never an uncaught error', async () => {
    await queue.add(test.db.knex, 'count', {});
    assert.equal(await queue.drain(), 1);
    const pids = await jobConnections();
    assert.ok(pids.length > 0, 'idle job connections');
    await test.db.knex.raw('SELECT pg_terminate_backend(pid) FROM unnest(?::int[]) AS pid', [pids]);
    await eventually(
      'the ended connections reported',
      () => warnings.filter((w) => w === 'a job connection failed while idle').length === pids.length,
    );
    await queue.add(test.db.knex, 'count', {});
    assert.equal(await queue.drain(), 1, 'the next drain runs on new connections');
    assert.equal(ran, 2);
  });
});
