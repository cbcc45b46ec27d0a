/**
 * Detection over more blocks than one `eth_getLogs` range, with more deposit addresses than one filter holds, and of
 * a payment already paid through the wallet's confirm (only ledger rows), and the scan as a queued job.
 */
import assert from 'node:assert/strict';
import { evmDepositScan } from '../../server/src/chains/eip155/depositScan.js';
import { insertClaim } from '../../server/src/db/queries/claims.js';
import { transitionPayment } from '../../server/src/payments/lifecycle.js';
import { iso } from '../../server/src/payments/snapshot.js';
import { enqueueDepositScans, scannedChains } from '../../server/src/settlement/collected/detection.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { LOCAL } from '../gateway/checkout.js';
import { ASKED, FEE_TOTAL, ledgerOf, startDetectionHarness, type DetectionHarness } from './detection.js';

describe('settlement scanDeposits over many blocks and addresses', () => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness();
  });
  after(() => h.close());
  beforeEach(() => h.startAtHead());

  it('a scan of more blocks than the range limit, in address batches, finds every transfer and moves the cursor to the head', async () => {
    const scanner = evmDepositScan(await sharedChains(), { maxRange: 3, addressBatch: 1 });
    const ids = [await h.createPayment(), await h.createPayment(), await h.createPayment()];
    const deposits = await Promise.all(ids.map((id) => h.depositFor(id)));
    const buyer = await h.buyer(3n * ASKED);
    const first = await h.pay(buyer, deposits[0]!, ASKED);
    await h.local.test.mine({ blocks: 7 });
    await h.pay(buyer, deposits[1]!, ASKED);
    await h.local.test.mine({ blocks: 4 });
    const last = await h.pay(buyer, deposits[2]!, ASKED);
    assert.ok(last.blockNumber - first.blockNumber > 3n);

    const report = await h.scan(scanner);
    assert.equal(report.recorded, 3);
    assert.deepEqual(new Set(report.succeeded), new Set(ids));
    const head = await h.local.clients.public.getBlockNumber({ cacheTime: 0 });
    const cursor = (await h.runtime.db.knex('scan_cursors').where({ chain_caip2: LOCAL }).first()) as {
      next_block: string;
    };
    assert.equal(BigInt(cursor.next_block), head + 1n);
  });

  it('a payment paid through the wallet confirm to its deposit address is not moved again: only ledger rows', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const paid = await h.pay(buyer, deposit, ASKED);
    const checkout = h.runtime.checkout!;
    const now = h.clock.now();
    const unit = `caip19/${h.tusd}`;
    // What confirm and the claim's watch write for it (checkout/recordClaim.ts, claimTasks.ts).
    await h.runtime.db.knex.transaction(async (trx) => {
      await insertClaim(trx, {
        id: 'clm_detectionconfirm001',
        paymentId,
        claimKey: `${LOCAL}:tx:${buyer.account.address}:0`,
        kind: 'erc20',
        chain: LOCAL,
        account: `${LOCAL}:${buyer.account.address}`,
        optionDigest: 'digest',
        resultsDigest: 'results',
        txId: paid.hash,
        state: 'pending',
        details: {},
        createdAt: now,
        updatedAt: now,
      });
      const fee = { unit, value: FEE_TOTAL.toString() };
      await transitionPayment(
        checkout,
        paymentId,
        {
          to: 'processing',
          from: ['requires_action'],
          stages: {
            processing: {
              processing_at: iso(now),
              option_amount: { unit, value: ASKED.toString() },
              fee: {
                kind: 'base_plus_percent',
                base_amount: { unit, value: '300000' },
                percent: { numerator: '29', denominator: '1000' },
                percent_amount: { unit, value: '362500' },
                total_amount: fee,
              },
              settlement_amount: { unit, value: (ASKED - FEE_TOTAL).toString() },
              buyer_caip10: `${LOCAL}:${buyer.account.address}`,
              chain_caip2: LOCAL,
            },
          },
        },
        trx,
      );
    });
    await h.scan();
    // Still processing: detection leaves a claimed payment to its watch, and its findings wait for the end.
    assert.equal((await h.payment(paymentId)).status, 'processing');
    await transitionPayment(checkout, paymentId, {
      to: 'succeeded',
      from: ['processing'],
      stages: { success: { succeeded_at: iso(now), tx_id: paid.hash } },
    });
    const version = (await h.payment(paymentId)).state_version;
    await h.scan();

    assert.equal((await h.payment(paymentId)).state_version, version);
    assert.deepEqual(ledgerOf(await h.ledger(paymentId)), [
      ['received', `received:${LOCAL}:${paid.hash}:${paid.logIndex}`, ASKED],
      ['fee', `fee:${paymentId}`, FEE_TOTAL],
      ['payable', `payable:${paymentId}`, ASKED - FEE_TOTAL],
    ]);
    assert.deepEqual(await h.discrepancies(paymentId), []);
  });

  it('the settlement.scanDeposits job, asked for twice, runs from the queue and credits the deposit', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const paid = await h.pay(await h.buyer(), deposit, ASKED);
    await enqueueDepositScans(h.runtime.checkout!);
    await enqueueDepositScans(h.runtime.checkout!);
    const queued = await h.runtime.db.knex('jobs').where({ task: 'settlement.scanDeposits' }).select('payload');
    // One job per chain with deposit work (here only the local chain has deposit addresses), however often asked.
    assert.deepEqual(
      queued.map((j: { payload: string }) => (JSON.parse(j.payload) as { chain: string }).chain),
      [LOCAL],
    );
    assert.ok(scannedChains(h.runtime.checkout!).includes(LOCAL));
    await h.drain();
    const payment = await h.payment(paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.stages.success?.tx_id, paid.hash);
  });
});
