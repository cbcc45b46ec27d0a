/**
 * Direct settlement on anvil (settlement/direct/settleDirect.ts): a live payment of a direct merchant settles only once its
 * success transaction is at or below the `finalized` block (anvil: 64 blocks behind the head), with `tx_id`, its
 * `payment.settled` event and the ledger rows; a transaction reorged out before finality never settles.
 */
import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { DEFAULT_DIRECT_SETTLEMENT, settleDirect } from '../../server/src/settlement/direct/settleDirect.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { expectJson } from '../gateway/harness.js';
import {
  LOCAL,
  SETTLEMENT,
  sendAction,
  startCheckoutHarness,
  withDirectTusd,
  type CheckoutHarness,
  type OptionsAnswer,
} from '../gateway/checkout.js';

/** The shared chains with the local EVM chain serving live payments (as a mainnet would). */
function liveEvm(chains: Chains): Chains {
  return { ...chains, evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, mode: 'live' as const } })) };
}

const FEE = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};

describeEachDatabase('settlement.settleDirect on anvil', (get) => {
  useChainSnapshots();
  let h: CheckoutHarness;

  before(async () => {
    h = await startCheckoutHarness({
      chains: liveEvm(withDirectTusd(await sharedChains())),
      merchant: { feeConfig: FEE },
      db: get().db,
    });
  });
  after(() => h.close());

  const liveCall = (method: string, path: string, body?: unknown) =>
    h.call(method, path, { body, headers: { 'Api-Key': h.wallet.liveKey } });

  /** A live payment paid by a plain ERC-20 transfer and confirmed: the watch job then carries it to `succeeded`. */
  async function paidLivePayment() {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment({ live: true });
    const answer = await expectJson<OptionsAnswer>(
      await liveCall('POST', `/v1/gateway/payment/${paymentId}/options`, { accounts: [buyer.caip10] }),
      200,
    );
    const option = answer.options?.find((o) => o.amount.unit === `caip19/${h.tusd}`);
    assert.ok(option, 'a live TUSD option');
    const hash = await sendAction(buyer, option);
    await expectJson(
      await liveCall('POST', `/v1/gateway/payment/${paymentId}/confirm`, { optionId: option.id, results: [hash] }),
      200,
    );
    await driveJobsUntil(`payment ${paymentId} to succeed`, h, async () => {
      const p = await findPayment(h.runtime.db.knex, paymentId);
      if (p?.status === 'failed') throw new Error(`payment failed: ${JSON.stringify(p.stages.failed)}`);
      return p?.status === 'succeeded' ? p : undefined;
    });
    return { paymentId, hash };
  }

  const settledEvents = async (paymentId: string) =>
    (await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.settled' })) as {
      payload: string;
    }[];

  it('a live direct payment settles only after its transaction is finalized, with tx_id, event and ledger rows', async () => {
    const { paymentId, hash } = await paidLivePayment();
    // The settlement job ran (drained with the watch) and found the transaction above the finalized block.
    await h.drain();
    h.clock.advance(DEFAULT_DIRECT_SETTLEMENT.recheckMs);
    await h.drain();
    assert.equal((await findPayment(h.runtime.db.knex, paymentId))?.stages.settled, null);
    assert.equal((await settledEvents(paymentId)).length, 0);
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { paymentId })).length, 0);

    await h.local.test.mine({ blocks: 64 });
    const settledStage = async () => (await findPayment(h.runtime.db.knex, paymentId))?.stages.settled ?? undefined;
    const settled = await driveJobsUntil(`payment ${paymentId} to settle`, h, settledStage, {
      stepMs: DEFAULT_DIRECT_SETTLEMENT.recheckMs,
    });
    assert.equal(settled.tx_id, hash);
    const payment = (await findPayment(h.runtime.db.knex, paymentId))!;
    assert.deepEqual(settled.settlement_amount, payment.stages.processing!.settlement_amount);
    const events = await settledEvents(paymentId);
    assert.equal(events.length, 1);
    const data = (JSON.parse(events[0]!.payload) as { data: { settled: { tx_id: string }; live: boolean } }).data;
    assert.equal(data.settled.tx_id, hash);
    assert.equal(data.live, true);

    const entries = await listLedgerEntries(h.runtime.db.knex, { paymentId });
    const received = entries.find((e) => e.kind === 'received')!;
    const fee = entries.find((e) => e.kind === 'fee')!;
    assert.equal(received.entryKey, `received:${paymentId}`);
    assert.equal(received.amount, BigInt(payment.stages.processing!.settlement_amount.value));
    assert.equal(received.address, SETTLEMENT);
    assert.equal(received.mode, 'direct');
    assert.equal(received.chain, LOCAL);
    assert.equal(received.asset, h.tusd);
    assert.equal(received.txId, hash);
    assert.equal(fee.entryKey, `fee:${paymentId}`);
    assert.equal(fee.amount, BigInt(payment.stages.processing!.fee!.total_amount.value));
    assert.ok(fee.amount > 0n);

    // A repeat of the job (a crash after the commit) changes nothing.
    assert.equal(await settleDirect(h.runtime.checkout!, { paymentId }), 'skipped');
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { paymentId })).length, 2);
  });

  it('a transaction reorged out before finality is not settled, and after the bound becomes a discrepancy', async () => {
    const before = await h.local.test.snapshot();
    const { paymentId, hash } = await paidLivePayment();
    // A reorg deeper than the required confirmations: the chain goes back to before the buyer's transfer.
    await h.local.test.revert({ id: before });
    await h.local.test.mine({ blocks: 70 });

    const deps = h.runtime.checkout!;
    const options = { recheckMs: 1_000, goneAfterMs: 60_000 };
    assert.equal(await settleDirect(deps, { paymentId }, options), 'gone');
    const since = h.clock.now();
    h.clock.advance(30_000);
    assert.equal(await settleDirect(deps, { paymentId, goneSince: since }, options), 'gone');
    assert.equal((await findPayment(h.runtime.db.knex, paymentId))?.stages.settled, null);
    assert.equal((await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 })).length, 0);

    h.clock.advance(30_000);
    assert.equal(await settleDirect(deps, { paymentId, goneSince: since }, options), 'abandoned');
    const payment = (await findPayment(h.runtime.db.knex, paymentId))!;
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.stages.settled, null);
    assert.equal((await settledEvents(paymentId)).length, 0);
    assert.equal((await listLedgerEntries(h.runtime.db.knex, { paymentId })).length, 0);
    const [found] = await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 });
    assert.equal(found?.kind, 'reorged_out');
    assert.equal(found?.txId, hash);
    const metrics = await h.runtime.metrics.registry.getSingleMetricAsString('paygate_settlement_reorgs_total');
    assert.match(metrics, /outcome="gone"/);
  });
});
