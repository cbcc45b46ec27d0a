/**
 * A refund is sent from the shared collection account only once the money it returns is there (docs/decisions.md
 * §22.12): accepted and reserved at once, it stays `planned` while its payment's deposit is not swept, and is sent
 * after the sweep is final. On the run's anvil, both databases.
 */
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { unpaidBalances } from '../../server/src/settlement/ledger.js';
import { claimRefund, refundPayment } from '../../server/src/settlement/refunds.js';
import type { MoveDeps } from '../../server/src/settlement/moveJobs.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { paidDeposit, refundDeps, startCollectedHarness, type CollectedHarness } from './collected.js';

describeEachDatabase('settlement.refund.waitsForSweep', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  afterEach(async () => {
    await h.close();
  });

  const stateOf = async (table: 'sweeps' | 'onchain_refunds', id: string) =>
    ((await h.runtime.db.knex(table).where({ id }).first()) as { state: string }).state;

  async function sweepAll(whileSent?: () => Promise<void>): Promise<void> {
    const [sweep] = await planSweeps(h.checkout);
    await h.local.test.mine({ blocks: 1 });
    await h.until('the sweep sent', async () => (await stateOf('sweeps', sweep!)) !== 'planned');
    await whileSent?.();
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await stateOf('sweeps', sweep!)) === 'final');
  }

  /**
   * A claimed refund of 1.5 TUSD of a payment whose deposit is not swept yet, while the collection account already
   * holds another payment's swept money, enough to pay it from.
   */
  async function claimedRefundBeforeSweep(buyer: string) {
    const deps = refundDeps(h);
    const scope = { merchantId: h.merchantId, live: true };
    await paidDeposit(h, 5_000_000n, 0n);
    await sweepAll();
    const d = await paidDeposit(h, 4_000_000n, 0n);
    const answer = await refundPayment(deps, scope, d.paymentId, { amount: '1500000' });
    await claimRefund(deps, new URL(answer.body.refund!.claim_url!).hash.slice(1), buyer);
    return { refundId: answer.body.refund!.refund_id, scope };
  }

  it('refundPayment + settlement.move: a refund of a payment not yet swept stays planned, reserved, and is sent after the sweep is final', async () => {
    h = await startCollectedHarness(get().db);
    const buyer = getAddress(`0x${'c2'.repeat(20)}`);
    const { refundId, scope } = await claimedRefundBeforeSweep(buyer);
    assert.equal((await unpaidBalances(h.runtime.db.knex, scope))[0]!.amount, 7_500_000n, 'reserved at once');

    // Rounds of the move while the deposit holds the money: nothing is sent from the shared account.
    for (let i = 0; i < 3; i++) {
      h.clock.advance(60_000);
      await h.drain();
    }
    assert.equal(await stateOf('onchain_refunds', refundId), 'planned');
    assert.equal(await h.balance(buyer), 0n);

    await sweepAll(async () =>
      assert.equal(await stateOf('onchain_refunds', refundId), 'planned', 'a sweep sent is not a sweep final'),
    );
    await h.until('the refund sent', async () => (await stateOf('onchain_refunds', refundId)) === 'sent');
    assert.equal(await h.balance(buyer), 1_500_000n);
  });

  it('settlement.move: a refund waiting for its sweep is sent as soon as the sweep is final, not at its next look', async () => {
    h = await startCollectedHarness(get().db);
    // Its next look would be an hour away: only the sweep's wake can send it within the clock `until` may move.
    Object.assign(h.checkout, { refundFundsWaitMs: 60 * 60_000 } satisfies Partial<MoveDeps>);
    const buyer = getAddress(`0x${'c3'.repeat(20)}`);
    const { refundId } = await claimedRefundBeforeSweep(buyer);
    await h.drain();
    assert.equal(await stateOf('onchain_refunds', refundId), 'planned', 'waiting for the sweep');

    await sweepAll();
    await h.until('the refund sent', async () => (await stateOf('onchain_refunds', refundId)) === 'sent');
    assert.equal(await h.balance(buyer), 1_500_000n);
  });
});
