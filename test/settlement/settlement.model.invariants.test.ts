/**
 * The model-based proof of settlement (issue 30, docs/decisions.md §22.17): fixed seeds of random sequences (payments
 * in both modes, exact, partial, over, late and reorganised deposits, mode switches, refunds and claims, sweeps and
 * payouts in flight, worker restarts) against the real server on both databases and the run's anvil, every invariant
 * checked after every step. A failure prints its seed and path: replay it with
 * `PAYGATE_MODEL_SEED=<seed> PAYGATE_MODEL_PATH=<path> npx mocha test/settlement/settlement.model.invariants.test.ts`
 * (PAYGATE_MODEL_SHRINK=1 shrinks it first; slow against a real chain).
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { disabledFromEnv, runModelSequences } from './settlementModel.run.js';

/** Seeds whose sequences reach a refund of a payment its planned payout holds (38) and mode switches (21, 56). */
const SEEDS = process.env.PAYGATE_MODEL_SEED ? [Number(process.env.PAYGATE_MODEL_SEED)] : [38, 21, 56];
const STEPS = Number(process.env.PAYGATE_MODEL_STEPS ?? 15);

describeEachDatabase('settlement.model invariants', (_get, dialect) => {
  for (const seed of SEEDS) {
    it(`random sequences of seed ${seed}: no money leaves twice, ledger equals chain, fees once, balances ≥ 0`, async function () {
      this.timeout(300_000);
      const report = await runModelSequences({
        dialect,
        seed,
        numRuns: 1,
        maxCommands: STEPS,
        path: process.env.PAYGATE_MODEL_PATH,
        shrink: process.env.PAYGATE_MODEL_SHRINK === '1',
        disabled: disabledFromEnv(),
      });
      assert.equal(report.failure, null, `${dialect}: ${report.failure}`);
    });
  }
});
