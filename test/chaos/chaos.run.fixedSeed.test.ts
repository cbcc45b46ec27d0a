/**
 * The chaos run's short form in `npm test` (issue 33 §2, docs/decisions.md §27.15, §27.26): the same driver as
 * `npm run chaos`, with a fixed seed and a few seconds of traffic, on PostgreSQL with two API processes and a worker,
 * both chains behind fault proxies, an API and the worker killed with SIGKILL and started again. Once the faults stop
 * and the money settles, every invariant holds.
 */
import assert from 'node:assert/strict';
import { runChaos, summaryMarkdown } from '../../scripts/chaos/run.js';
import { createTestDatabase } from '../helpers/db.js';
import { assertNoViolations } from '../helpers/invariants.js';

/** The seed of the short run; `npm run chaos -- --seed 20261128 --minutes 0.2 --kill-every-s 4` replays its schedule. */
const SEED = 20261128;

describe('chaos run, short, fixed seed [postgres]', function () {
  // Its own bound is far above its usual time (about 60-90 s): children start slowly on a loaded machine.
  this.timeout(420_000);

  it('payments flow through endpoint faults and SIGKILLs of an API and the worker; every invariant holds once the money settles', async () => {
    const database = await createTestDatabase('postgres');
    const t0 = Date.now();
    const lines: string[] = [];
    const log = (line: string) => {
      lines.push(`+${Math.round((Date.now() - t0) / 1000)} s ${line}`);
      // CHAOS_LOG=1 prints the run's course as it goes (where its time goes, on a loaded machine).
      if (process.env.CHAOS_LOG) console.log(lines.at(-1));
    };
    try {
      const summary = await runChaos({
        seed: SEED,
        durationMs: 12_000,
        database,
        apis: 2,
        workers: 1,
        concurrency: 3,
        killEveryMs: 4_000,
        settleMs: 120_000,
        log,
      });
      const story = `seed ${SEED}\n${lines.join('\n')}\n${summaryMarkdown(summary)}`;
      assert.ok(summary.settled, `the money settled within the bound\n${story}`);
      assertNoViolations(summary.violations);
      const payments = Object.values(summary.payments).flatMap((byStatus) => Object.entries(byStatus));
      assert.ok(
        payments.some(([status, n]) => status === 'succeeded' && n > 0),
        story,
      );
      const faultChains = new Set(Object.keys(summary.faults).map((key) => key.split(' ')[0]));
      assert.deepEqual([...faultChains].sort(), ['evm', 'solana'], `faults hit both chains\n${story}`);
      assert.ok(summary.kills.api >= 1 && summary.kills.worker >= 1, `an API and the worker were killed\n${story}`);
    } finally {
      await database.drop();
    }
  });
});
