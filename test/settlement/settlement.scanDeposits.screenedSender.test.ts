/**
 * Deposits from screened senders (docs/decisions.md §25.8, issue 32 §5): a transfer to a collected payment's deposit
 * address from an account on the screening list pays nothing. It is recorded once as a `screened_sender` finding,
 * its funds are in the ledger as received (they are at the address) but never the merchant's and never the buyer's
 * excess, and no sweep moves them: they stay at the deposit address for the operator. A clean sender then pays the
 * payment as usual. On anvil, on both databases.
 */
import assert from 'node:assert/strict';
import { screeningListOf } from '../../server/src/checkout/screening.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { LOCAL } from '../gateway/checkout.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { ASKED, FEE_TOTAL, startDetectionHarness, type DetectionHarness } from './detection.js';

describeEachDatabase('settlement.scanDeposits: a screened sender', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
  });
  after(() => h.close());
  beforeEach(() => h.startAtHead());
  afterEach(() => {
    h.runtime.checkout!.screening = screeningListOf('');
  });

  const metric = async () => {
    const text = await h.runtime.metrics.registry.metrics();
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`paygate_settlement_screened_deposits_total{chain="${LOCAL}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('a screened sender paying in full leaves the payment open, held as one finding; a clean sender then pays it', async () => {
    const paymentId = await h.createPayment({ expiresInSeconds: 3_600 });
    const deposit = await h.depositFor(paymentId);
    const screened = await h.buyer();
    // Listed in lower case: the list matches EVM addresses in any case.
    h.runtime.checkout!.screening = screeningListOf(`${screened.account.address.toLowerCase()}\n`);
    const before = await metric();

    const held = await h.pay(screened, deposit, ASKED);
    const report = await h.scan();
    assert.equal(report.recorded, 1);
    assert.deepEqual(report.succeeded, []);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    assert.deepEqual(
      (await h.discrepancies(paymentId)).map((f) => [f.kind, f.chain, f.txId, f.receivedValue, f.expectedValue]),
      [['screened_sender', LOCAL, held.hash, ASKED.toString(), '0']],
    );
    // The funds are at the deposit address, so the ledger knows them (reconciliation matches the chain); none of it
    // is the merchant's payable or the buyer's refundable excess.
    assert.deepEqual(
      (await h.ledger(paymentId)).map((e) => [e.kind, e.amount]),
      [['received', ASKED]],
    );
    assert.equal((await metric()) - before, 1);

    // Scanned again: the same single finding, counted once.
    await h.scan();
    assert.equal((await h.discrepancies(paymentId)).length, 1);
    assert.equal((await metric()) - before, 1);

    // A clean sender pays the full amount: the payment succeeds on that transfer alone.
    const clean = await h.buyer();
    const paid = await h.pay(clean, deposit, ASKED);
    const after = await h.scan();
    assert.deepEqual(after.succeeded, [paymentId]);
    const payment = await h.payment(paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.stages.success?.tx_id, paid.hash);
    assert.equal(payment.stages.processing?.buyer_caip10, `${LOCAL}:${clean.account.address}`);
    assert.deepEqual(
      (await h.ledger(paymentId)).map((e) => [e.kind, e.txId ?? null, e.amount]),
      [
        ['received', held.hash, ASKED],
        ['received', paid.hash, ASKED],
        ['fee', paid.hash, FEE_TOTAL],
        ['payable', paid.hash, ASKED - FEE_TOTAL],
      ],
    );
    // The screened transfer is not an overpayment of the paid payment (that would make it refundable).
    assert.deepEqual(
      (await h.discrepancies(paymentId)).map((f) => f.kind),
      ['screened_sender'],
    );

    // Once both are final, a sweep takes the clean transfer only: the held funds stay at the deposit address, even
    // after the list no longer names the sender (the finding holds them, not the list).
    h.runtime.checkout!.screening = screeningListOf('');
    await h.local.test.mine({ blocks: 70 });
    await h.scan();
    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => t.state),
      ['final', 'final'],
    );
    assert.equal((await h.discrepancies(paymentId)).length, 1);
    const planned = await planSweeps(h.runtime.checkout!);
    const swept = (await h.runtime.db
      .knex('sweep_transfers as s')
      .join('deposit_transfers as t', 't.id', 's.transfer_id')
      .whereIn('s.sweep_id', planned)
      .where('t.payment_id', paymentId)
      .select('t.tx_id')) as { tx_id: string }[];
    assert.deepEqual(
      swept.map((s) => s.tx_id),
      [paid.hash],
    );
  });

  it('a screened deposit to a payment that then expires is no late payment: still held, never refundable', async () => {
    const paymentId = await h.createPayment({ expiresInSeconds: 3_600 });
    const deposit = await h.depositFor(paymentId);
    const screened = await h.buyer();
    h.runtime.checkout!.screening = screeningListOf(screened.caip10);
    const held = await h.pay(screened, deposit, ASKED);
    await h.scan();
    h.clock.advance(2 * 3_600_000);
    await h.local.test.mine({ blocks: 70 });
    await h.scan();
    assert.equal((await h.payment(paymentId)).status, 'expired');
    assert.deepEqual(
      (await h.discrepancies(paymentId)).map((f) => [f.kind, f.txId]),
      [['screened_sender', held.hash]],
    );
    assert.deepEqual(
      (await h.ledger(paymentId)).map((e) => e.kind),
      ['received'],
    );
  });
});
