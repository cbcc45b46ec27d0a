/**
 * A process running graphile-worker that is killed (SIGKILL, OOM, power loss) while a job runs leaves that job locked
 * by its dead worker, and graphile-worker lets another worker take it only 4 hours later: in the chaos run two EVM
 * gasless payments stayed `processing`, their relay job run once and never again (docs/decisions.md §27.25). A live
 * queue must free a dead process's jobs within seconds, and never a live worker's job while it runs, however long.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { createPostgresQueue } from '../../server/src/jobs/postgres.js';
import type { JobQueue } from '../../server/src/jobs/types.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';
import { eventually } from '../helpers/wait.js';

/** Short, so that the test is fast; production keeps the defaults (a 15 s sweep, a 30 s grace). */
const liveness = { sweepMs: 100, graceMs: 300 };

function recordingLogger(): { logger: Logger; count: (text: string) => number } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }) as unknown as Logger;
  return { logger, count: (text) => lines.filter((l) => l.includes(text)).length };
}

/** A worker process whose `hold` job never ends; it prints `running` once the job runs. */
function spawnWorker(url: string): { child: ChildProcess; output: () => string } {
  const script = [
    `const { createPostgresQueue } = await import(${JSON.stringify(resolve('server/src/jobs/postgres.ts'))});`,
    `const { openDatabase } = await import(${JSON.stringify(resolve('server/src/db/connect.ts'))});`,
    `const { pino } = await import('pino');`,
    `const queue = createPostgresQueue({`,
    `  db: openDatabase(${JSON.stringify(url)}), logger: pino({ level: 'silent' }), now: Date.now, pollIntervalMs: 100,`,
    `  tasks: { hold: async () => { process.stdout.write('running\\n'); await new Promise(() => {}); } },`,
    `});`,
    `await queue.start();`,
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: resolve('server'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, output: () => out };
}

describe('jobs.postgres queue after a worker process is killed [postgres]', function () {
  this.timeout(120_000);
  let test: TestDatabase;
  const queues: JobQueue[] = [];
  let child: ChildProcess | null = null;
  /** Ends a job left running, so that its queue can stop. */
  let release: () => void = () => undefined;

  const lockedBy = async (): Promise<(string | null)[]> => {
    const { rows } = (await test.db.knex.raw('SELECT locked_by FROM graphile_worker._private_jobs ORDER BY id')) as {
      rows: { locked_by: string | null }[];
    };
    return rows.map((r) => r.locked_by);
  };

  before(async () => {
    test = await createTestDatabase('postgres');
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGKILL');
      await exited;
    }
    child = null;
    release();
    await Promise.all(queues.splice(0).map((q) => q.stop()));
    await test.db.knex.raw('DELETE FROM graphile_worker._private_jobs');
  });
  after(async () => {
    await test.drop();
  });

  it('a job whose worker process was killed runs again on a live worker within seconds, not after 4 hours', async () => {
    const worker = spawnWorker(test.url);
    child = worker.child;
    const victim = createPostgresQueue({
      db: test.db,
      tasks: {},
      logger: pino({ level: 'silent' }),
      now: testClock().now,
    });
    await victim.add(test.db.knex, 'hold', { paymentId: 'pay_1' }, { maxAttempts: 25 });
    await eventually('the child running the job', () => worker.output().includes('running'), { timeoutMs: 60_000 });
    const [locker] = await lockedBy();
    assert.ok(locker, 'the job is locked by the child’s worker');

    const exited = new Promise((done) => child!.once('exit', done));
    child.kill('SIGKILL');
    await exited;

    const runs: number[] = [];
    const { logger } = recordingLogger();
    const survivor = createPostgresQueue({
      db: test.db,
      tasks: { hold: async (_payload, ctx) => void runs.push(ctx.attempt) },
      logger,
      now: testClock().now,
      pollIntervalMs: 100,
      liveness,
    });
    queues.push(survivor);
    await survivor.start();
    await eventually('the killed worker’s job run again', () => runs.length === 1, { timeoutMs: 30_000 });
    assert.deepEqual(runs, [2], 'its second attempt');
    await eventually('the job gone', async () => (await lockedBy()).length === 0);
  });

  it('a live worker’s long-running job is never freed by another process’s sweep', async () => {
    const released = new Promise<void>((done) => (release = done));
    let runs = 0;
    const owner = createPostgresQueue({
      db: test.db,
      tasks: {
        slow: async () => {
          runs += 1;
          await released;
        },
      },
      logger: pino({ level: 'silent' }),
      now: testClock().now,
      pollIntervalMs: 100,
      liveness,
    });
    queues.push(owner);
    await owner.add(test.db.knex, 'slow', {});
    await owner.start();
    await eventually('the slow job running', () => runs === 1);
    const [locker] = await lockedBy();
    assert.ok(locker);

    // Another process's queue (its own connections and liveness session) that could run the job too.
    const { logger, count } = recordingLogger();
    let stolen = 0;
    const other = createPostgresQueue({
      db: test.db,
      tasks: { slow: async () => void stolen++ },
      logger,
      now: testClock().now,
      pollIntervalMs: 100,
      liveness,
    });
    queues.push(other);
    await other.start();
    // Sweeps that looked at the job's locker (held past the grace) and found it alive.
    await eventually('five sweeps checking the live locker', () => count('"checked":1,"freed":0') >= 5);
    assert.equal(count('freed the jobs of job runners'), 0);
    assert.deepEqual(await lockedBy(), [locker], 'still locked by its live worker');
    assert.equal(stolen, 0);
    assert.equal(runs, 1);

    release();
    await eventually('the slow job done', async () => (await lockedBy()).length === 0);
    assert.equal(stolen, 0);
  });
});
