/**
 * Detection on the local Solana chain through the domain's job (settlement/collected/detection.ts, queued as the timer queues
 * it, run by draining the queue): plain SPL transfers from wallets that never saw Paygate pay live collected
 * payments at the deposit addresses the gateway hands out. SQLite only: the storage is the EVM detection's, tested on
 * both databases in settlement.scanDeposits.
 */
import assert from 'node:assert/strict';
import { screeningListOf } from '../../server/src/checkout/screening.js';
import { ASKED, FEE_TOTAL, ledgerOf } from './detection.js';
import { startSolanaCollectedHarness, type SolanaCollectedHarness } from './solanaCollected.js';

describe('settlementSolana scanDeposits through the job', () => {
  let h: SolanaCollectedHarness;
  before(async () => {
    h = await startSolanaCollectedHarness();
  });
  after(() => h.close());

  const received = (key: { signature: string }, position: number) => `received:${h.caip2}:${key.signature}:${position}`;
  const excess = (key: { signature: string }, position: number) => `excess:${h.caip2}:${key.signature}:${position}`;
  const status = async (paymentId: string) => (await h.payment(paymentId)).status;

  it('a plain SPL transfer from a fresh wallet pays a collected payment: succeeded, fee and payable exact', async () => {
    const { paymentId, deposit } = await h.livePayment();
    const buyer = await h.sender();
    // [create the deposit's token account, transferChecked]: the transfer is instruction 1.
    const paid = await h.transfer(buyer, [[deposit, ASKED]]);

    const payment = await h.scanUntil('the payment to succeed', async () => {
      const p = await h.payment(paymentId);
      return p.status === 'succeeded' && p;
    });
    assert.equal(payment.stages.success?.tx_id, paid.signature);
    const processing = payment.stages.processing!;
    assert.deepEqual(processing.option_amount, { unit: `caip19/${h.asset}`, value: ASKED.toString() });
    assert.equal(processing.fee?.total_amount.value, FEE_TOTAL.toString());
    assert.deepEqual(processing.settlement_amount, {
      unit: `caip19/${h.asset}`,
      value: (ASKED - FEE_TOTAL).toString(),
    });
    assert.equal(processing.buyer_caip10, `${h.caip2}:${buyer.address}`);
    assert.equal(processing.chain_caip2, h.caip2);
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', received(paid, 1), ASKED],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
    ]);
    const entries = await h.ledger(paymentId);
    assert.ok(entries.every((e) => e.address === deposit && e.mode === 'collected' && e.asset === h.asset && e.live));
    assert.deepEqual(await h.discrepancies(paymentId), []);

    // Finalized 32 slots later: the transfer is final and no longer watched; nothing is written twice.
    h.finalize();
    await h.scanUntil('the transfer to be final', async () =>
      (await h.transfers(paymentId)).every((t) => t.state === 'final'),
    );
    assert.equal((await h.ledger(paymentId)).length, 3);
  });

  it('a transfer whose source owner is screened pays nothing and is held; a clean wallet then pays (decisions §25.8)', async () => {
    const { paymentId, deposit } = await h.livePayment();
    const screened = await h.sender();
    const checkout = h.runtime.checkout!;
    checkout.screening = screeningListOf(`${h.caip2}:${screened.address}`);
    try {
      const held = await h.transfer(screened, [[deposit, ASKED]]);
      await h.scanUntil('the screened transfer held', async () => (await h.discrepancies(paymentId)).length === 1);
      assert.equal(await status(paymentId), 'requires_action');
      assert.deepEqual(
        (await h.discrepancies(paymentId)).map((d) => [d.kind, d.txId, d.receivedValue]),
        [['screened_sender', held.signature, ASKED.toString()]],
      );
      assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [['received', received(held, 1), ASKED]]);

      const paid = await h.transfer(await h.sender(), [[deposit, ASKED]]);
      const payment = await h.scanUntil('the payment to succeed', async () => {
        const p = await h.payment(paymentId);
        return p.status === 'succeeded' && p;
      });
      assert.equal(payment.stages.success?.tx_id, paid.signature);
      assert.deepEqual(
        (await h.discrepancies(paymentId)).map((d) => d.kind),
        ['screened_sender'],
      );
    } finally {
      checkout.screening = screeningListOf('');
    }
  });

  it('an underpayment stays requires_action; a top-up completes it with the top-up as the success transaction', async () => {
    const { paymentId, deposit } = await h.livePayment();
    const buyer = await h.sender();
    const first = await h.transfer(buyer, [[deposit, 5_000_000n]]);
    await h.scanUntil('the first transfer counted', async () => (await h.ledger(paymentId)).length === 1);
    assert.equal(await status(paymentId), 'requires_action');

    const topUp = await h.transfer(buyer, [[deposit, 7_500_000n]]);
    const payment = await h.scanUntil('the payment to succeed', async () => {
      const p = await h.payment(paymentId);
      return p.status === 'succeeded' && p;
    });
    assert.equal(payment.stages.success?.tx_id, topUp.signature);
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', received(first, 1), 5_000_000n],
      ['received', received(topUp, 1), 7_500_000n],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
    ]);
    assert.deepEqual(await h.discrepancies(paymentId), []);
  });

  it('an overpayment succeeds and records the excess; a transfer after success is an overpayment too', async () => {
    const { paymentId, deposit } = await h.livePayment();
    const buyer = await h.sender();
    const over = await h.transfer(buyer, [[deposit, 13_000_000n]]);
    await h.scanUntil('the payment to succeed', async () => (await status(paymentId)) === 'succeeded');
    const again = await h.transfer(buyer, [[deposit, 1_000_000n]]);
    const found = await h.scanUntil('both findings', async () => {
      const d = await h.discrepancies(paymentId);
      return d.length === 2 && d;
    });
    assert.deepEqual(
      found.map((d) => [d.kind, d.txId, d.expectedValue, d.receivedValue]),
      [
        ['overpayment', again.signature, '0', '1000000'],
        ['overpayment', over.signature, '12500000', '13000000'],
      ],
    );
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', received(over, 1), 13_000_000n],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
      // What the payment did not take is the buyer's: an excess, refundable from itself (settlement/excess.ts).
      ['excess', excess(over, 1), 500_000n],
      ['received', received(again, 1), 1_000_000n],
      ['excess', excess(again, 1), 1_000_000n],
    ]);
  });

  it('a transfer landing after expiresAt is a late payment: the payment stays expired, the money is recorded', async () => {
    const { paymentId, deposit } = await h.livePayment(1250, 60);
    const expiresAt = (await h.payment(paymentId)).expires_at;
    // 200 slots of 400 ms: the chain's clock passes expiresAt, and the business clock follows it.
    h.solana.test.warpSlots(200n);
    h.clock.advance(80_000);
    const buyer = await h.sender();
    const late = await h.transfer(buyer, [[deposit, ASKED]]);
    const found = await h.scanUntil('the late finding', async () => {
      const d = await h.discrepancies(paymentId);
      return d.length === 1 && d;
    });

    assert.equal(await status(paymentId), 'expired');
    assert.deepEqual(
      found.map((d) => [d.kind, d.txId, d.expectedValue, d.receivedValue]),
      [['late_payment', late.signature, '12500000', '12500000']],
    );
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', received(late, 1), ASKED],
      ['excess', excess(late, 1), ASKED],
    ]);
    const [transfer] = (await h.runtime.db.knex('deposit_transfers').where({ payment_id: paymentId })) as {
      block_time: number;
    }[];
    assert.ok(Number(transfer!.block_time) * 1000 > expiresAt, 'the chain dates the transfer after expiresAt');
  });

  it('two payments paid in one transaction both succeed, each with its own transfer of it', async () => {
    const [a, b] = [await h.livePayment(), await h.livePayment(777)];
    const buyer = await h.sender();
    const both = await h.transfer(buyer, [
      [a.deposit, ASKED],
      [b.deposit, 7_770_000n],
    ]);
    await h.scanUntil('both payments to succeed', async () =>
      (await Promise.all([a, b].map((p) => status(p.paymentId)))).every((s) => s === 'succeeded'),
    );
    for (const p of [a, b]) assert.equal((await h.payment(p.paymentId)).stages.success?.tx_id, both.signature);
    // 0.30 USD + 2.9 % of 7.77 USD = 300,000 + 225,330.
    assert.deepEqual(ledgerOf(await h.ledger(b.paymentId)), [
      ['received', received(both, 3), 7_770_000n],
      ['fee', `fee:${b.paymentId}`, 525_330n],
      ['payable', `payable:${b.paymentId}`, 7_244_670n],
    ]);
    assert.equal((await h.ledger(a.paymentId))[0]!.entryKey, received(both, 1));
  });
});
