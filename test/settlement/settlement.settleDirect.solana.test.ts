/**
 * Direct settlement on the local Solana chain: a live payment's success transaction settles at `finalized`
 * commitment (32 slots after it landed), not at `confirmed`; its finality is read by the Solana adapter.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSigner } from '@solana/kit';
import { updateMerchantSettings } from '../../server/src/accounts/merchants.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { transitionPayment } from '../../server/src/payments/lifecycle.js';
import { iso } from '../../server/src/payments/snapshot.js';
import { settleDirect, SETTLE_DIRECT_TASK } from '../../server/src/settlement/direct/settleDirect.js';
import { settlementModeOf } from '../../server/src/settlement/modes.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { sharedChains } from '../helpers/chain.js';
import { startGatewayHarness, type GatewayHarness } from '../gateway/harness.js';

describe('settlement.settleDirect on the local Solana chain', () => {
  let h: GatewayHarness;
  before(async () => {
    const chains = await sharedChains();
    const solana = chains.local!.solana;
    h = await startGatewayHarness({
      chains,
      merchant: { settlementAddresses: { [solana.caip2]: solana.settlementOwner.address } },
    });
  });
  after(() => h.close());

  it('a success adds no direct settlement job for a test payment or one created in collected mode', async () => {
    const testPayment = await h.createPayment();
    await updateMerchantSettings(
      h.runtime,
      h.account.merchantId,
      { settlementMode: 'collected' },
      { depositSeed: true },
    );
    const collected = await h.createPayment({ live: true });
    await updateMerchantSettings(h.runtime, h.account.merchantId, { settlementMode: 'direct' }, { depositSeed: true });
    await h.runtime.db.knex.transaction(async (trx) => {
      for (const id of [testPayment, collected]) {
        const payment = (await findPayment(trx, id))!;
        await (await settlementModeOf(trx, payment)).onSucceeded(h.runtime, trx, payment);
      }
    });
    const jobs = (await h.runtime.db.knex('jobs').where({ task: SETTLE_DIRECT_TASK })) as { payload: string }[];
    assert.deepEqual(
      jobs.filter((j) => [testPayment, collected].includes((JSON.parse(j.payload) as { paymentId: string }).paymentId)),
      [],
    );
  });

  it('a live direct payment settles once its transaction is finalized, not when it is confirmed', async () => {
    const solana = (await sharedChains()).local!.solana;
    const asset = `${solana.caip2}/token:${solana.mints.tusd.address}`;
    const amount = { unit: `caip19/${asset}`, value: '12500000' };
    // A real transfer into the merchant's token account, as the buyer's payment transaction would make.
    const txId = await solana.faucet.mintTokens(solana.settlementOwner.address, solana.mints.tusd.address, 12_500_000n);
    const buyer = await generateKeyPairSigner();
    const paymentId = await h.createPayment({ live: true });
    const now = h.clock.now();
    await transitionPayment(h.runtime, paymentId, {
      to: 'processing',
      from: ['requires_action'],
      stages: {
        processing: {
          processing_at: iso(now),
          option_amount: amount,
          fee: { kind: 'base_plus_percent', total_amount: { unit: amount.unit, value: '392500' } },
          settlement_amount: amount,
          buyer_caip10: `${solana.caip2}:${buyer.address}`,
          chain_caip2: solana.caip2,
        },
      },
    });
    // As the watch job does when the transaction reaches the chain's commitment: the success's event hook
    // (settlement/modes.ts) adds the direct mode's settlement job in the same transaction.
    await transitionPayment(h.runtime, paymentId, {
      to: 'succeeded',
      from: ['processing'],
      stages: { success: { succeeded_at: iso(now), tx_id: txId } },
    });
    const job = (await h.runtime.db.knex('jobs').where({ task: SETTLE_DIRECT_TASK }).first()) as
      { payload: string } | undefined;
    assert.deepEqual(JSON.parse(job?.payload ?? 'null'), { paymentId });

    const deps = h.runtime.checkout!;
    // Landed at `confirmed`, not yet final: an absence no wait can show, so one look is the assertion.
    assert.equal(await settleDirect(deps, { paymentId }), 'pending');
    assert.equal((await findPayment(h.runtime.db.knex, paymentId))?.stages.settled, null);

    solana.test.warpSlots(32n);
    assert.equal(await settleDirect(deps, { paymentId }), 'settled');
    const settled = (await findPayment(h.runtime.db.knex, paymentId))?.stages.settled;
    assert.deepEqual(settled, { settled_at: iso(h.clock.now()), settlement_amount: amount, tx_id: txId });
    const entries = await listLedgerEntries(h.runtime.db.knex, { paymentId });
    assert.deepEqual(
      entries.map((e) => [e.kind, e.amount, e.address, e.asset]),
      [
        ['received', 12_500_000n, solana.settlementOwner.address, asset],
        ['fee', 392_500n, null, asset],
      ],
    );
  });
});
