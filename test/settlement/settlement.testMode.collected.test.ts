/**
 * Test mode rehearses collected settlement as live runs it (docs/decisions.md §22.16): a test payment paid to its
 * deposit address on the local chain is not settled at success; it is swept, paid out on the test chain, and gets
 * `payment.settled` once that payout is final, naming the payout's transaction. A simulated payment (no money on any
 * chain, so no payout will ever cover it) still settles automatically, and `simulate to: settled` is refused for a
 * payment whose payout is what settles it.
 */
import assert from 'node:assert/strict';
import type { MoveDeps } from '../../server/src/settlement/moves.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { SETTLEMENT } from '../gateway/checkout.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError } from '../helpers/responses.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { ASKED, FEE_TOTAL, startDetectionHarness, type DetectionHarness } from './detection.js';

const MOVE_RECHECK_MS = 50;

interface EventRow {
  type: string;
  payload: string;
}

describeEachDatabase('settlement in test mode, collected', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
    Object.assign(h.runtime.checkout!, { moveRecheckMs: MOVE_RECHECK_MS } satisfies Partial<MoveDeps>);
  });
  after(() => h.close());
  beforeEach(() => h.startAtHead());

  const events = async (paymentId: string) =>
    ((await h.runtime.db.knex('events').where({ payment_id: paymentId }).orderBy('state_version')) as EventRow[]).map(
      (e) => ({ type: e.type, data: (JSON.parse(e.payload) as { data: Record<string, unknown> }).data }),
    );
  const settledEvents = async (paymentId: string) =>
    (await events(paymentId)).filter((e) => e.type === 'payment.settled');
  const until = <T>(what: string, done: () => Promise<T | null | undefined | false>) =>
    driveJobsUntil(what, { drain: () => h.drain(), clock: h.clock }, done, { stepMs: MOVE_RECHECK_MS });
  const simulate = (paymentId: string, to: string) =>
    h.call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, {
      headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
      body: { to },
    });
  const rowOf = async (table: 'sweeps' | 'payouts', id: string) =>
    (await h.runtime.db.knex(table).where({ id }).first()) as { state: string; tx_id: string | null };

  it('a test payment paid to its deposit address is not settled at success; settled with the payout transaction once it is final', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const paid = await h.pay(buyer, deposit, ASKED);
    await h.scan();
    const payment = await h.payment(paymentId);
    assert.equal(payment.live, false, 'a test payment');
    assert.equal(payment.status, 'succeeded');

    // Every job due after success runs, the clock well past any recheck: no settlement from the deposit transaction.
    h.clock.advance(60_000);
    await h.drain();
    assert.equal((await h.payment(paymentId)).stages.settled, null);
    assert.deepEqual(await settledEvents(paymentId), []);
    // Settling by hand would announce a settlement no payout made.
    assert.match(await expectError(await simulate(paymentId, 'settled'), 409, 'invalid_state'), /payout/);

    // Live's path: the deposit final, swept, the sweep final, paid out on the test chain.
    await h.local.test.mine({ blocks: 70 });
    await h.scan();
    const [sweepId] = await planSweeps(h.runtime.checkout!);
    assert.ok(sweepId, 'the deposit is swept');
    await until('the sweep sent', async () => (await rowOf('sweeps', sweepId)).state === 'sent');
    await h.local.test.mine({ blocks: 64 });
    await until('the sweep final', async () => (await rowOf('sweeps', sweepId)).state === 'final');
    const payoutBefore = await h.tusdBalance(SETTLEMENT);
    const [payoutId] = await planPayouts(h.runtime.checkout!);
    assert.ok(payoutId, 'the payment is paid out');
    const payoutTx = await until('the payout sent', async () => {
      const row = await rowOf('payouts', payoutId);
      return row.state === 'sent' && row.tx_id;
    });
    assert.equal((await h.tusdBalance(SETTLEMENT)) - payoutBefore, ASKED - FEE_TOTAL, 'the merchant was paid on chain');
    h.clock.advance(60_000);
    await h.drain();
    assert.deepEqual(await settledEvents(paymentId), [], 'not settled before the payout is final');

    await h.local.test.mine({ blocks: 64 });
    await until('the payout final', async () => (await rowOf('payouts', payoutId)).state === 'final');
    const settled = await settledEvents(paymentId);
    assert.equal(settled.length, 1);
    const stage = (settled[0]!.data as { settled: { tx_id: string; settlement_amount: { value: string } } }).settled;
    assert.equal(stage.tx_id, payoutTx);
    assert.notEqual(stage.tx_id, paid.hash);
    assert.equal(stage.settlement_amount.value, (ASKED - FEE_TOTAL).toString());
  });

  it('a simulated test payment of a collected merchant still settles automatically: no payout will ever cover it', async () => {
    const paymentId = await h.createPayment();
    await h.depositFor(paymentId);
    for (const to of ['processing', 'succeeded']) assert.equal((await simulate(paymentId, to)).status, 200, to);
    await h.drain();
    const settled = await settledEvents(paymentId);
    assert.equal(settled.length, 1);
    assert.equal((settled[0]!.data as { settled: { tx_id: string } }).settled.tx_id, `test:${paymentId}`);
    assert.deepEqual(
      (await h.ledger(paymentId)).map((e) => e.kind),
      [],
      'nothing is owed to the merchant for money that never arrived',
    );
  });
});
