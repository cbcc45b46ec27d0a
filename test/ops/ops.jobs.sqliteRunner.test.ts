/**
 * The embedded job runner (jobs/sqlite.ts) in the background: jobs run side by side up to its concurrency, so a
 * slow one (a webhook attempt waiting on its receiver) holds up only its own slot, and each job runs once.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createSqliteQueue } from '../../server/src/jobs/sqlite.js';
import type { JobQueue, TaskList } from '../../server/src/jobs/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { simulatedWork } from '../helpers/wait.js';

describe('jobs.sqlite runner', () => {
  let test: TestDatabase;
  let queue: JobQueue | null = null;

  beforeEach(async () => {
    test = await createTestDatabase('sqlite');
  });
  afterEach(async () => {
    await queue?.stop();
    queue = null;
    await test.drop();
  });

  const start = async (tasks: TaskList, concurrency?: number, leaseMs?: number) => {
    queue = createSqliteQueue({
      knex: test.db.knex,
      tasks,
      logger: pino({ level: 'silent' }),
      now: Date.now,
      pollIntervalMs: 5,
      concurrency,
      leaseMs,
    });
    await queue.start();
    return queue;
  };

  it('a job waiting on one queued after it completes: the later job is not held up behind it', async () => {
    let releaseSlow: () => void = () => undefined;
    const slowMayFinish = new Promise<void>((r) => (releaseSlow = r));
    const done: string[] = [];
    const finished = new Promise<void>((resolve) => {
      const tasks: TaskList = {
        slow: async () => {
          await slowMayFinish;
          done.push('slow');
          resolve();
        },
        fast: async () => {
          done.push('fast');
          releaseSlow();
        },
      };
      void (async () => {
        const q = await start(tasks);
        await test.db.knex.transaction(async (trx) => {
          await q.add(trx, 'slow', {});
          await q.add(trx, 'fast', {});
        });
      })();
    });
    await finished;
    assert.deepEqual(done, ['fast', 'slow']);
  });

  it('never more than its concurrency at once, and every job exactly once', async () => {
    let active = 0;
    let most = 0;
    const runs = new Map<number, number>();
    const all = new Promise<void>((resolve) => {
      const tasks: TaskList = {
        work: async (payload) => {
          const n = (payload as { n: number }).n;
          active++;
          most = Math.max(most, active);
          await simulatedWork(20);
          active--;
          runs.set(n, (runs.get(n) ?? 0) + 1);
          if (runs.size === 12) resolve();
        },
      };
      void (async () => {
        const q = await start(tasks, 3);
        await test.db.knex.transaction(async (trx) => {
          for (let n = 0; n < 12; n++) await q.add(trx, 'work', { n });
        });
      })();
    });
    await all;
    await queue!.stop();
    assert.equal(most, 3);
    assert.deepEqual(
      [...runs.entries()].sort(([a], [b]) => a - b),
      Array.from({ length: 12 }, (_, n) => [n, 1]),
    );
    const left = (await test.db.knex('jobs').count({ n: '*' })) as { n: unknown }[];
    assert.equal(Number(left[0]!.n), 0);
  });

  it('a job added while a slow one runs on an otherwise empty queue is taken at the next poll', async () => {
    let slowStarted: () => void = () => undefined;
    const started = new Promise<void>((r) => (slowStarted = r));
    let releaseSlow: () => void = () => undefined;
    const slowMayFinish = new Promise<void>((r) => (releaseSlow = r));
    let fastDone: () => void = () => undefined;
    const fast = new Promise<void>((r) => (fastDone = r));
    const q = await start({
      slow: async () => {
        slowStarted();
        await slowMayFinish;
      },
      fast: async () => fastDone(),
    });
    await test.db.knex.transaction((trx) => q.add(trx, 'slow', {}));
    await started;
    // Several polls find nothing while the slow job runs (the runner idles meanwhile); then a new job comes.
    await simulatedWork(30);
    await test.db.knex.transaction((trx) => q.add(trx, 'fast', {}));
    await fast;
    releaseSlow();
  });

  it('a job running past its lease is not claimed again by the same process', async () => {
    let runs = 0;
    let finished: () => void = () => undefined;
    const done = new Promise<void>((r) => (finished = r));
    const q = await start(
      {
        slow: async () => {
          runs++;
          await simulatedWork(60);
          finished();
        },
      },
      4,
      1,
    );
    await test.db.knex.transaction((trx) => q.add(trx, 'slow', {}));
    await done;
    await q.stop();
    assert.equal(runs, 1);
  });
});
