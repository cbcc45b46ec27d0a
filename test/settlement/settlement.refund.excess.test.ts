/**
 * An excess is refunded from itself, never from the merchant (issue 30, defect 8; docs/decisions.md §22.12): on the
 * run's anvil, a plain transfer above the amount asked and one after the payment expired are found by detection,
 * written to the ledger as `excess` at their deposit address, and refunded with `source: 'excess'` to the buyer by
 * claim link, once swept; the merchant's unpaid balance never moves, their payout is whole, and reconciliation
 * finds the ledger equal to the chain at the deposit, the collection account and the treasury.
 */
import assert from 'node:assert/strict';
import { ApiError } from '../../server/src/errors.js';
import { listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import type { MoveDeps } from '../../server/src/settlement/moves.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { claimRefund, refundPayment } from '../../server/src/settlement/refunds.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { LOCAL, SETTLEMENT } from '../gateway/checkout.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { ASKED, FEE_TOTAL, startDetectionHarness, type DetectionHarness } from './detection.js';

const STEP_MS = 50;

describeEachDatabase('settlement.refund.excess', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  beforeEach(async () => {
    h = await startDetectionHarness({ db: get().db });
    Object.assign(h.runtime.checkout!, { moveRecheckMs: STEP_MS } satisfies Partial<MoveDeps>);
    await h.startAtHead();
  });
  afterEach(() => h.close());

  const deps = () => ({
    ...h.runtime.checkout!,
    config: h.runtime.config,
    secretBox: h.runtime.secretBox,
    keyPurges: h.runtime.keyPurges,
  });
  // The harness's payments are test-mode payments (its merchant's test key).
  const scope = () => ({ merchantId: h.account.merchantId, live: false });
  const unpaid = async () => (await unpaidBalances(h.runtime.db.knex, scope()))[0]?.amount ?? 0n;
  const until = <T>(what: string, done: () => Promise<T | null | undefined | false>) =>
    driveJobsUntil(what, { drain: () => h.drain(), clock: h.clock }, done, { stepMs: STEP_MS });
  const stateOf = async (table: 'sweeps' | 'payouts' | 'onchain_refunds', id: string) =>
    ((await h.runtime.db.knex(table).where({ id }).first()) as { state: string }).state;

  async function final(table: 'sweeps' | 'payouts' | 'onchain_refunds', id: string): Promise<void> {
    await until(`${id} sent`, async () => ['sent', 'final'].includes(await stateOf(table, id)));
    await h.local.test.mine({ blocks: 64 });
    await until(`${id} final`, async () => (await stateOf(table, id)) === 'final');
  }

  async function refused(paymentId: string, body: { amount?: string; source?: 'excess' }): Promise<ApiError> {
    try {
      await refundPayment(deps(), scope(), paymentId, body);
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
    return assert.fail('the refund was accepted');
  }

  it("refundPayment source=excess: an overpayment's excess goes back to the buyer from itself, the merchant's balance untouched, the ledger equal to the chain", async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const over = await h.pay(buyer, deposit, ASKED + 500_000n);
    await h.scan();
    assert.equal((await h.payment(paymentId)).status, 'succeeded');
    const [excess] = await listLedgerEntries(h.runtime.db.knex, { paymentId, kinds: ['excess'] });
    assert.deepEqual(
      [excess?.amount, excess?.address, excess?.txId],
      [500_000n, deposit, over.hash],
      'the excess is in the ledger at the deposit address it arrived at',
    );
    const owed = ASKED - FEE_TOTAL;
    assert.equal(await unpaid(), owed);

    const answer = await refundPayment(deps(), scope(), paymentId, { source: 'excess' });
    const refund = answer.body.refund!;
    assert.deepEqual(refund.amount, { unit: `caip19/${h.tusd}`, value: '500000' }, 'all of the excess, no more');
    assert.equal(await unpaid(), owed, "the merchant's unpaid balance does not move");
    assert.equal((await refused(paymentId, { source: 'excess', amount: '1' })).code, 'invalid_state');
    // A plain transfer: the buyer names their address through the claim link.
    await claimRefund(deps(), new URL(refund.claim_url!).hash.slice(1), buyer.account.address);
    await h.drain();
    assert.equal(await stateOf('onchain_refunds', refund.refund_id), 'planned', 'waits for its money to be swept');

    await h.local.test.mine({ blocks: 70 });
    await h.scan();
    const [sweep] = await planSweeps(h.runtime.checkout!);
    const buyerBefore = await h.tusdBalance(buyer.account.address);
    await final('sweeps', sweep!);
    const payoutBefore = await h.tusdBalance(SETTLEMENT);
    // The excess refund is still open: it holds none of what the payment owes the merchant, so the payout goes ahead.
    assert.ok(['planned', 'sent'].includes(await stateOf('onchain_refunds', refund.refund_id)));
    const [payout] = await planPayouts(h.runtime.checkout!);
    assert.ok(payout, 'an open refund of the excess does not hold the payout');
    await final('onchain_refunds', refund.refund_id);
    assert.equal((await h.tusdBalance(buyer.account.address)) - buyerBefore, 500_000n);
    await final('payouts', payout);
    assert.equal((await h.tusdBalance(SETTLEMENT)) - payoutBefore, owed, 'the merchant is paid in full');
    assert.equal(await unpaid(), 0n);

    const result = await h.runtime.reconciler!.run();
    const here = result.differences.filter((d) => d.chain === LOCAL && d.asset === h.tusd);
    assert.deepEqual(here, [], 'ledger = chain at the deposit, the collection account and the treasury');
    assert.ok(result.checked.some((c) => c.chain === LOCAL && c.role === 'collection'));
  });

  it('refundPayment source=excess: a transfer after expiry is all excess, refundable whatever the status; a payment without excess is 409', async () => {
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    const deposit = await h.depositFor(paymentId);
    h.clock.advance(61_000);
    const buyer = await h.buyer();
    await h.pay(buyer, deposit, 2_000_000n);
    await h.scan();
    assert.equal((await h.payment(paymentId)).status, 'expired');
    const partial = await refundPayment(deps(), scope(), paymentId, { source: 'excess', amount: '1500000' });
    assert.equal(partial.body.refund!.amount.value, '1500000');
    const tooMuch = await refused(paymentId, { source: 'excess', amount: '500001' });
    assert.equal(tooMuch.code, 'params_validation');
    const rest = await refundPayment(deps(), scope(), paymentId, { source: 'excess' });
    assert.equal(rest.body.refund!.amount.value, '500000');
    assert.equal(await unpaid(), 0n, 'nothing of it was ever the merchant');
    assert.deepEqual(
      (await listLedgerEntries(h.runtime.db.knex, { paymentId, kinds: ['excess_refunded'] })).map((e) => e.amount),
      [1_500_000n, 500_000n],
    );

    const exact = await h.createPayment();
    await h.pay(buyer, await h.depositFor(exact), ASKED);
    await h.scan();
    assert.equal((await refused(exact, { source: 'excess' })).code, 'invalid_state');
  });
});
