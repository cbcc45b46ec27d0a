/**
 * graphile-worker on PostgreSQL (jobs/postgres.ts) under an injected clock months behind the wall clock, as in tests:
 * a job's `runAt` is a business time, `drain()` runs exactly the jobs due on that clock, and the background runner
 * waits the same delay in wall time (docs/decisions.md §22.10).
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createPostgresQueue, DUE_FIELD } from '../../server/src/jobs/postgres.js';
import type { JobQueue, TaskList } from '../../server/src/jobs/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import { eventually } from '../helpers/wait.js';

const RECHECK_MS = 15_000;

describe('jobs.postgres queue clock [postgres]', () => {
  let test: TestDatabase;
  let clock: TestClock;
  let queue: JobQueue;
  /** Each run of `recheck`: the payload it saw. */
  let runs: Record<string, unknown>[];

  before(async () => {
    test = await createTestDatabase('postgres');
  });
  after(() => test.drop());

  beforeEach(async () => {
    await test.db.knex.raw('DELETE FROM graphile_worker._private_jobs');
    clock = testClock();
    runs = [];
    const tasks: TaskList = {
      // Reschedules itself under its key, as settleDirect, moves and claim watches do while the chain has not decided.
      recheck: async (payload, ctx) => {
        runs.push(payload as Record<string, unknown>);
        await queue.add(
          test.db.knex,
          'recheck',
          { n: runs.length },
          { jobKey: 'recheck', runAt: ctx.now() + RECHECK_MS },
        );
      },
      once: async (payload) => {
        runs.push(payload as Record<string, unknown>);
      },
    };
    queue = createPostgresQueue({
      db: test.db,
      tasks,
      logger: pino({ level: 'silent' }),
      now: clock.now,
      pollIntervalMs: 50,
    });
  });
  afterEach(() => queue.stop());

  it('a job rescheduling itself with a future business runAt: once per drain, again once the clock passes it', async () => {
    await queue.add(test.db.knex, 'recheck', { n: 0 }, { jobKey: 'recheck' });
    assert.equal(await queue.drain(), 1);
    assert.equal(await queue.drain(), 0, 'not due yet on the injected clock, though long past on the wall clock');
    clock.advance(RECHECK_MS - 1);
    assert.equal(await queue.drain(), 0);
    clock.advance(1);
    assert.equal(await queue.drain(), 1);
    assert.deepEqual(runs, [{ n: 0 }, { n: 1 }], 'the task never sees the queue-owned due time');
  });

  it('a job added for a later business time: not run by a drain before it, run by the first drain after it', async () => {
    await queue.add(test.db.knex, 'once', { n: 7 }, { runAt: clock.now() + 60_000 });
    assert.equal(await queue.drain(), 0);
    clock.advance(60_000);
    assert.equal(await queue.drain(), 1);
    assert.deepEqual(runs, [{ n: 7 }]);
    assert.equal(await queue.drain(), 0, 'run once');
  });

  it('the business due time is kept with the job and its wall run_at is the same delay away', async () => {
    const wallBefore = Date.now();
    await queue.add(test.db.knex, 'once', { n: 1 }, { runAt: clock.now() + 60_000 });
    const { rows } = (await test.db.knex.raw('SELECT payload, run_at FROM graphile_worker._private_jobs')) as {
      rows: { payload: Record<string, unknown>; run_at: Date }[];
    };
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.payload[DUE_FIELD], clock.now() + 60_000);
    const runAt = rows[0]!.run_at.getTime();
    assert.ok(runAt >= wallBefore + 60_000 && runAt <= Date.now() + 60_000, `run_at ${rows[0]!.run_at.toISOString()}`);
  });

  it('the background runner waits a business delay in wall time, whatever the injected clock reads', async () => {
    await queue.start();
    await queue.add(test.db.knex, 'once', { n: 3 }, { runAt: clock.now() + 300 });
    await queue.add(test.db.knex, 'once', { n: 4 }, { runAt: clock.now() + 3_600_000 });
    await eventually('the job due in 300 ms to run', () => runs.length === 1);
    assert.deepEqual(runs, [{ n: 3 }], 'the job due in an hour waits');
    const { rows } = (await test.db.knex.raw(
      "SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE run_at > now() + interval '50 minutes'",
    )) as { rows: { n: number }[] };
    assert.equal(rows[0]!.n, 1, 'the job due in an hour is an hour away on the wall clock');
  });
});
