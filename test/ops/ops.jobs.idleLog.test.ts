/**
 * The queue's per-job "job completed" line (jobs/sqlite.ts, jobs/postgres.ts): at info for a job that did work, at
 * debug for a task that answered IDLE (a recurring poll that found nothing), on both engines.
 */
import assert from 'node:assert/strict';
import { openJobQueue } from '../../server/src/jobs/queue.js';
import { IDLE, type JobQueue } from '../../server/src/jobs/types.js';
import { describeEachDatabase } from '../helpers/db.js';
import { captureLogs } from '../helpers/logs.js';

describeEachDatabase('jobs: the completion line of an idle job', (get) => {
  let queue: JobQueue;
  const logs = captureLogs('debug');
  before(() => {
    queue = openJobQueue(get().db, {
      tasks: { 'test.quiet': async () => IDLE, 'test.busy': async () => undefined },
      logger: logs.logger,
      now: Date.now,
    });
  });

  it('a task answering IDLE completes with a debug line; any other completes with an info line', async () => {
    await get().db.knex.transaction(async (trx) => {
      await queue.add(trx, 'test.quiet', {});
      await queue.add(trx, 'test.busy', {});
    });
    await queue.drain();
    const completed = logs.lines().filter((l) => l.msg === 'job completed');
    const levelOf = (task: string) => completed.filter((l) => l.task === task).map((l) => l.level);
    assert.deepEqual(levelOf('test.quiet'), [20]);
    assert.deepEqual(levelOf('test.busy'), [30]);
  });
});
