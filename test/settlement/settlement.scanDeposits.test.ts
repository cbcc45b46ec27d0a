/**
 * Detection on anvil (settlement/collected/detection.ts, chains/eip155/depositScan.ts): plain ERC-20 transfers to deposit
 * addresses pay collected payments, on both databases (the cursor's compare-and-set and the transfers' unique key
 * are storage).
 */
import assert from 'node:assert/strict';
import { createRuntime } from '@paygate/server';
import { pino } from 'pino';
import { LOCAL } from '../gateway/checkout.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { scanDeposits } from '../../server/src/settlement/collected/detection.js';
import { ASKED, FEE_TOTAL, ledgerOf, startDetectionHarness, type DetectionHarness, type Mined } from './detection.js';

describeEachDatabase('settlement scanDeposits on anvil', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
  });
  after(() => h.close());
  beforeEach(() => h.startAtHead());

  it('a plain transfer from a fresh address pays a collected payment: succeeded, exact ledger', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    // An address that never called Paygate: it holds TUSD and gas, and only sends `transfer`.
    const buyer = await h.buyer();
    const paid = await h.pay(buyer, deposit, ASKED);

    const report = await h.scan();
    assert.equal(report.recorded, 1);
    assert.deepEqual(report.succeeded, [paymentId]);
    const payment = await h.payment(paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.stages.success?.tx_id, paid.hash);
    const processing = payment.stages.processing!;
    assert.deepEqual(processing.option_amount, { unit: `caip19/${h.tusd}`, value: '12500000' });
    assert.equal(processing.fee?.total_amount.value, FEE_TOTAL.toString());
    assert.deepEqual(processing.settlement_amount, { unit: `caip19/${h.tusd}`, value: (ASKED - FEE_TOTAL).toString() });
    assert.equal(processing.buyer_caip10, `${LOCAL}:${buyer.account.address}`);
    assert.equal(processing.chain_caip2, LOCAL);
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', `received:${LOCAL}:${paid.hash}:${paid.logIndex}`, ASKED],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
    ]);
    const entries = await h.ledger(paymentId);
    assert.ok(entries.every((e) => e.address === deposit && e.mode === 'collected' && e.asset === h.tusd));
    assert.deepEqual(await h.discrepancies(paymentId), []);

    // A scan again changes nothing; past the finalized block the transfer is final and no longer watched.
    await h.scan();
    assert.equal((await h.ledger(paymentId)).length, 3);
    assert.equal((await h.transfers(paymentId))[0]!.state, 'seen');
    await h.local.test.mine({ blocks: 70 });
    await h.scan();
    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => t.state),
      ['final'],
    );
    assert.equal((await h.ledger(paymentId)).length, 3);
  });

  it('an underpayment stays requires_action; a top-up completes it with the top-up as the success transaction', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const first = await h.pay(buyer, deposit, 5_000_000n);
    await h.scan();
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', `received:${LOCAL}:${first.hash}:${first.logIndex}`, 5_000_000n],
    ]);

    const topUp = await h.pay(buyer, deposit, 7_500_000n);
    await h.scan();
    const payment = await h.payment(paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.stages.success?.tx_id, topUp.hash);
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', `received:${LOCAL}:${first.hash}:${first.logIndex}`, 5_000_000n],
      ['received', `received:${LOCAL}:${topUp.hash}:${topUp.logIndex}`, 7_500_000n],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
    ]);
    assert.deepEqual(await h.discrepancies(paymentId), []);
  });

  it('an overpayment succeeds and records the excess; a transfer after success is an overpayment too', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const over = await h.pay(buyer, deposit, 13_000_000n);
    await h.scan();
    assert.equal((await h.payment(paymentId)).status, 'succeeded');
    const again = await h.pay(buyer, deposit, 1_000_000n);
    await h.scan();

    const found = await h.discrepancies(paymentId);
    assert.deepEqual(
      found.map((d) => [d.kind, d.txId, d.expectedValue, d.receivedValue]),
      [
        ['overpayment', again.hash, '0', '1000000'],
        ['overpayment', over.hash, '12500000', '13000000'],
      ],
    );
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', `received:${LOCAL}:${over.hash}:${over.logIndex}`, 13_000_000n],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
      // What the payment did not take is the buyer's: an excess, refundable from itself (settlement/excess.ts).
      ['excess', `excess:${LOCAL}:${over.hash}:${over.logIndex}`, 500_000n],
      ['received', `received:${LOCAL}:${again.hash}:${again.logIndex}`, 1_000_000n],
      ['excess', `excess:${LOCAL}:${again.hash}:${again.logIndex}`, 1_000_000n],
    ]);
  });

  it('a transfer after expiresAt is a late payment: the payment stays expired, the money is recorded', async () => {
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    const deposit = await h.depositFor(paymentId);
    h.clock.advance(61_000);
    const buyer = await h.buyer();
    const late = await h.pay(buyer, deposit, ASKED);
    await h.scan();

    assert.equal((await h.payment(paymentId)).status, 'expired');
    const found = await h.discrepancies(paymentId);
    assert.deepEqual(
      found.map((d) => [d.kind, d.txId, d.expectedValue, d.receivedValue]),
      [['late_payment', late.hash, '12500000', '12500000']],
    );
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', `received:${LOCAL}:${late.hash}:${late.logIndex}`, ASKED],
      ['excess', `excess:${LOCAL}:${late.hash}:${late.logIndex}`, ASKED],
    ]);
  });

  it('two payments paid in one block both succeed', async () => {
    const ids = [await h.createPayment(), await h.createPayment()];
    const deposits = [await h.depositFor(ids[0]!), await h.depositFor(ids[1]!)];
    const buyers = [await h.buyer(), await h.buyer()];
    await h.local.test.setAutomine(false);
    let mined: Mined[];
    try {
      const hashes = [await h.send(buyers[0]!, deposits[0]!, ASKED), await h.send(buyers[1]!, deposits[1]!, ASKED)];
      await h.local.test.mine({ blocks: 1 });
      mined = await Promise.all(hashes.map((hash) => h.mined(hash)));
    } finally {
      await h.local.test.setAutomine(true);
    }
    assert.equal(mined[0]!.blockNumber, mined[1]!.blockNumber);
    const report = await h.scan();
    assert.equal(report.recorded, 2);
    assert.deepEqual(new Set(report.succeeded), new Set(ids));
    for (const [i, id] of ids.entries()) {
      const payment = await h.payment(id);
      assert.equal(payment.status, 'succeeded');
      assert.equal(payment.stages.success?.tx_id, mined[i]!.hash);
    }
  });

  it('after a restart the scan resumes at the cursor: nothing missed, nothing counted twice', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const first = await h.pay(buyer, deposit, 5_000_000n);
    await h.scan();
    const cursor = (await h.runtime.db.knex('scan_cursors').where({ chain_caip2: LOCAL }).first()) as {
      next_block: string;
    };
    assert.equal(BigInt(cursor.next_block), first.blockNumber + 1n);

    // Mined while no process scans; then a new process over the same database.
    const second = await h.pay(buyer, deposit, 7_500_000n);
    const restarted = await createRuntime({
      config: testConfig(),
      db: h.runtime.db,
      logger: pino({ level: 'silent' }),
      now: h.clock.now,
      chains: await sharedChains(),
    });
    try {
      const report = await scanDeposits(restarted.checkout!, LOCAL);
      assert.equal(report.recorded, 1);
      assert.equal((await h.payment(paymentId)).status, 'succeeded');
      assert.equal((await h.payment(paymentId)).stages.success?.tx_id, second.hash);
      // A scan made to start again before both transfers records and credits nothing twice.
      await h.runtime.db
        .knex('scan_cursors')
        .where({ chain_caip2: LOCAL })
        .update({ next_block: first.blockNumber.toString() });
      assert.equal((await scanDeposits(restarted.checkout!, LOCAL)).recorded, 0);
    } finally {
      await restarted.stopBackground();
    }
    const received = (await h.ledger(paymentId)).filter((e) => e.kind === 'received');
    assert.deepEqual(
      received.map((e) => e.amount),
      [5_000_000n, 7_500_000n],
    );
    assert.equal((await h.transfers(paymentId)).length, 2);
  });
});
