/**
 * A move that can never be sent (settlement/moves.ts, MOVE_SEND_RETRY_MS): the ledger expects funds the chain does
 * not hold, so every gas estimate of the sweep reverts. After its attempts, on the business clock, the move ends
 * `failed`, gives its transfers back once (the next plan covers them again), counts in
 * `paygate_settlement_moves_failed_total`, and nothing moved on chain.
 */
import assert from 'node:assert/strict';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { MOVE_SEND_RETRY_MS, runMove } from '../../server/src/settlement/moves.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness } from './collected.js';

describeEachDatabase('settlement.move.unsendable', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  beforeEach(async () => {
    h = await startCollectedHarness(get().db);
  });
  afterEach(async () => {
    await h.close();
  });

  const sweepRow = async (id: string) =>
    (await h.runtime.db.knex('sweeps').where({ id }).first()) as { state: string; tx_id: string | null };
  const sweptTransfers = async (id: string) =>
    ((await h.runtime.db.knex('sweep_transfers').where({ sweep_id: id })) as unknown[]).length;

  it('a sweep of funds the chain lacks: failed after its attempts, its transfers given back once, counted', async () => {
    const d = await paidDeposit(h, 1_000_000n, 0n);
    // The ledger and the detection record twice what the deposit holds on chain.
    await h.runtime.db.knex('deposit_transfers').where({ payment_id: d.paymentId }).update({ amount: '2000000' });
    const [sweep] = await planSweeps(h.checkout);
    assert.equal(await sweptTransfers(sweep!), 1);

    await h.drain();
    assert.equal((await sweepRow(sweep!)).state, 'planned', 'the first attempt failed; the move waits');
    for (const [i, delay] of MOVE_SEND_RETRY_MS.entries()) {
      h.clock.advance(delay - 1);
      await h.drain();
      assert.equal((await sweepRow(sweep!)).state, 'planned', `attempt ${i + 2} waits its delay`);
      h.clock.advance(1);
      await h.drain();
    }
    const failed = await sweepRow(sweep!);
    assert.equal(failed.state, 'failed', `failed after ${MOVE_SEND_RETRY_MS.length + 1} attempts`);
    assert.equal(failed.tx_id, null);
    assert.equal(await sweptTransfers(sweep!), 0, 'its transfers are given back');
    assert.equal(await h.balance(d.address), 1_000_000n, 'nothing moved');
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] })).length, 0);
    const metric = await h.runtime.metrics.registry.getSingleMetricAsString('paygate_settlement_moves_failed_total');
    assert.match(metric, /kind="sweep",reason="unsendable"} 1\n?$/m);

    // Once: a later run of the failed move changes nothing, and the transfer is planned again exactly once.
    await runMove(h.checkout, 'sweep', sweep!);
    assert.equal((await sweepRow(sweep!)).state, 'failed');
    const again = await planSweeps(h.checkout);
    assert.equal(again.length, 1);
    assert.equal(await sweptTransfers(again[0]!), 1);
    assert.deepEqual(await planSweeps(h.checkout), []);
    const metricAfter = await h.runtime.metrics.registry.getSingleMetricAsString(
      'paygate_settlement_moves_failed_total',
    );
    assert.match(metricAfter, /reason="unsendable"} 1\n?$/m, 'counted once');
  });
});
