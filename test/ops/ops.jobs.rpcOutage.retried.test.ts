/**
 * A job that fails because a chain's RPC endpoints do not answer (an outage, not a defect of the task) runs again
 * within seconds, however often it met the outage, and never uses up its attempts: once the endpoints answer, the
 * payment it watches moves on its own (docs/decisions.md §27.21). With the queues' exponential backoff, a watch that
 * failed seven times in a row waited 18 minutes, and the chaos run left payments `processing` after every fault had
 * healed.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { isEndpointFailure, RpcEndpointError } from '../../server/src/chains/rpcPost.js';
import { openJobQueue } from '../../server/src/jobs/queue.js';
import { OUTAGE_RETRY_MS, type JobQueue } from '../../server/src/jobs/types.js';
import { describeEachDatabase } from '../helpers/db.js';
import { testClock, type TestClock } from '../helpers/runtime.js';

/** Failures in a row during the outage: past both the attempts allowed and where the backoff reaches minutes. */
const OUTAGE_RUNS = 8;

describeEachDatabase('jobs queue during an RPC outage', (get, dialect) => {
  let clock: TestClock;
  let queue: JobQueue;
  let runs: number;
  let failing: (err: Error) => Error;

  beforeEach(async () => {
    if (dialect === 'postgres') await get().db.knex.raw('DELETE FROM graphile_worker._private_jobs');
    else await get().db.knex('jobs').delete();
    clock = testClock();
    runs = 0;
    queue = openJobQueue(get().db, {
      tasks: {
        watch: async () => {
          runs += 1;
          if (runs <= OUTAGE_RUNS) throw failing(new Error('the chain read failed'));
        },
      },
      logger: pino({ level: 'silent' }),
      now: clock.now,
      isOutage: isEndpointFailure,
    });
  });
  afterEach(() => queue.stop());

  /** Advances the business clock by the outage retry and drains, `rounds` times; answers the runs seen. */
  async function drive(rounds: number): Promise<number> {
    for (let i = 0; i < rounds; i += 1) {
      await queue.drain();
      clock.advance(OUTAGE_RETRY_MS);
    }
    return runs;
  }

  it('a job failing on an endpoint outage runs again each few seconds past its attempts, and completes once it ends', async () => {
    // As viem and kit raise it: the pool's endpoint failure inside the client's own error.
    failing = (err) => Object.assign(err, { cause: new RpcEndpointError('timeout', 'no answer within 2000 ms') });
    await queue.add(get().db.knex, 'watch', { paymentId: 'pay_1' }, { jobKey: 'watch:pay_1', maxAttempts: 3 });
    assert.equal(await drive(OUTAGE_RUNS + 2), OUTAGE_RUNS + 1, 'each retry ran, then the job completed');
    assert.equal(await drive(3), OUTAGE_RUNS + 1, 'the completed job is gone');
  });
});
