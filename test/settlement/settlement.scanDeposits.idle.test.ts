/**
 * A server that has no deposit work queues no deposit scan, and a scan that finds nothing says so (the queue then
 * logs its completion at debug): settlement/collected/detection.ts `enqueueDepositScans` and its task.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { IDLE } from '../../server/src/jobs/types.js';
import {
  detectionTasks,
  enqueueDepositScans,
  SCAN_DEPOSITS_TASK,
  WATCH_AFTER_END_MS,
} from '../../server/src/settlement/collected/detection.js';
import { LOCAL } from '../gateway/checkout.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { ASKED, startDetectionHarness, type DetectionHarness } from './detection.js';

describeEachDatabase('settlement.scanDeposits idle', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
  });
  after(() => h.close());

  /** The chains enqueueDepositScans asks the queue for, observed at the queue's door. */
  async function enqueued(): Promise<string[]> {
    const chains: string[] = [];
    const jobs = {
      ...h.runtime.jobs,
      add: async (_trx: unknown, task: string, payload: Record<string, unknown>) => {
        assert.equal(task, SCAN_DEPOSITS_TASK);
        chains.push(payload.chain as string);
      },
    };
    await enqueueDepositScans({ ...h.runtime.checkout!, jobs });
    return chains;
  }
  const scanTask = () =>
    detectionTasks(h.runtime.checkout!)[SCAN_DEPOSITS_TASK]!(
      { chain: LOCAL },
      { logger: pino({ level: 'silent' }), now: h.clock.now, attempt: 1 },
    );

  it('enqueueDepositScans: no deposit address watched (no collected-mode payment) queues no scan; one payment queues its chain only', async () => {
    assert.deepEqual(await enqueued(), []);
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    await h.depositFor(paymentId);
    assert.deepEqual(await enqueued(), [LOCAL]);
    // Ended (expired by the sweep), its address is still watched for late transfers for a week, then not.
    h.clock.advance(61_000);
    await h.runtime.sweep();
    assert.equal((await h.payment(paymentId)).status, 'expired');
    assert.deepEqual(await enqueued(), [LOCAL]);
    h.clock.advance(WATCH_AFTER_END_MS + 1);
    assert.deepEqual(await enqueued(), []);
  });

  it('the scan task answers IDLE when it found nothing, and nothing when it recorded a transfer', async () => {
    await h.startAtHead();
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    assert.equal(await scanTask(), IDLE);
    await h.pay(await h.buyer(), deposit, ASKED);
    assert.equal(await scanTask(), undefined);
    assert.equal((await h.transfers(paymentId)).length, 1);
  });
});
