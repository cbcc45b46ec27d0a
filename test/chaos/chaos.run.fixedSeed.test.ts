/**
 * The chaos run's short form in `npm test` (issue 33 §2, docs/decisions.md §27.15): the same driver as
 * `npm run chaos`, with a fixed seed and a few seconds of traffic, on PostgreSQL with two API processes and a worker,
 * both chains behind fault proxies, at least one process killed with SIGKILL and started again. Once the faults stop
 * and the money settles, every invariant holds.
 */
import assert from 'node:assert/strict';
import { runChaos, summaryMarkdown } from '../../scripts/chaos/run.js';
import { createTestDatabase } from '../helpers/db.js';
import { assertNoViolations } from '../helpers/invariants.js';

/** The seed of the short run; `npm run chaos -- --seed 20261128 --minutes 0.25` replays its schedule. */
const SEED = 20261128;

describe('chaos run, short, fixed seed [postgres]', function () {
  // Three children load the server through tsx: tens of seconds on a loaded machine before the traffic starts.
  this.timeout(420_000);

  it('payments flow through endpoint faults and a SIGKILL; every invariant holds once the money settles', async () => {
    const database = await createTestDatabase('postgres');
    try {
      const summary = await runChaos({
        seed: SEED,
        durationMs: 15_000,
        database,
        apis: 2,
        workers: 1,
        concurrency: 3,
        killEveryMs: 8_000,
        settleMs: 120_000,
      });
      assert.ok(summary.settled, `the money settled within the bound\n${summaryMarkdown(summary)}`);
      assertNoViolations(summary.violations);
      const payments = Object.values(summary.payments).flatMap((byStatus) => Object.entries(byStatus));
      assert.ok(
        payments.some(([status, n]) => status === 'succeeded' && n > 0),
        JSON.stringify(summary.payments),
      );
      assert.ok(Object.keys(summary.faults).length > 0, 'faults were injected');
      assert.ok(summary.kills.api + summary.kills.worker >= 1, 'a process was killed');
    } finally {
      await database.drop();
    }
  });
});
