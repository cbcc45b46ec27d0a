/**
 * A chain's first deposit scan (docs/decisions.md §27.27): on EVM a scan without a cursor starts at the chain's head,
 * so a deposit mined between the first address given out on the chain and that chain's first scan (a worker down,
 * a scan job slow under load or failing on the RPC) would never be seen: the money sits at the deposit address, the
 * payment expires unpaid and the ledger counts nothing (the chaos run's `ledgerEqualsChain` violation). Giving out the
 * first address starts the cursor, so the scan reads from there.
 */
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { depositAddressesFor } from '../../server/src/settlement/collected/deposits.js';
import { LOCAL } from '../gateway/checkout.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { ASKED, ledgerOf, startDetectionHarness, type DetectionHarness } from './detection.js';

describeEachDatabase('settlement scanDeposits, the chain first scanned after a deposit', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
  });
  after(() => h.close());

  it('a deposit mined before the chain was ever scanned is found by the first scan and pays the payment', async () => {
    const knex = h.runtime.db.knex;
    // The chain as on a new installation: never scanned.
    await knex('scan_cursors').where({ chain_caip2: LOCAL }).delete();
    const paymentId = await h.createPayment();
    const payment = (await findPayment(knex, paymentId))!;
    const addresses = await depositAddressesFor(h.runtime.checkout!, payment);
    const deposit = getAddress(addresses.find((a) => a.chain === LOCAL)!.address);
    const buyer = await h.buyer();
    const paid = await h.pay(buyer, deposit, ASKED);
    // The scan comes late: blocks go by before it runs.
    await h.local.test.mine({ blocks: 5 });

    await h.scan();
    await h.local.test.mine({ blocks: 5 });
    await h.scan();

    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => [t.tx_id, t.amount]),
      [[paid.hash, ASKED.toString()]],
      'the first scan found the deposit',
    );
    const after = (await findPayment(knex, paymentId))!;
    assert.equal(after.status, 'succeeded');
    assert.equal(after.stages.success?.tx_id, paid.hash);
    assert.deepEqual(ledgerOf(await h.ledger(paymentId))[0], [
      'received',
      `received:${LOCAL}:${paid.hash}:${paid.logIndex}`,
      ASKED,
    ]);
  });
});
