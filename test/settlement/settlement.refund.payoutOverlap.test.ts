/**
 * A refund and a payout never pay out the same money (issue 30, defect 1; docs/decisions.md §22.12): a payment's
 * money is in at most one outgoing move at a time. On the run's anvil, through the real sweep, payout and refund
 * paths: a refund of a payment whose payout is planned or sent is refused, a paid-out payment has nothing left to
 * refund whatever the merchant's other payments hold, and a refund racing the payout's planning loses or wins whole.
 */
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { ApiError } from '../../server/src/errors.js';
import { listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { claimRefund, refundPayment } from '../../server/src/settlement/refunds.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import {
  paidDeposit,
  refundDeps,
  startCollectedHarness,
  type CollectedHarness,
  type PaidDeposit,
} from './collected.js';

describeEachDatabase('settlement.refund.payoutOverlap', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  afterEach(async () => {
    await h.close();
  });

  const deps = () => refundDeps(h);
  const scope = () => ({ merchantId: h.merchantId, live: true });
  const unpaid = async () => (await unpaidBalances(h.runtime.db.knex, scope()))[0]?.amount ?? 0n;
  const buyer = getAddress(`0x${'b1'.repeat(20)}`);
  const stateOf = async (table: 'sweeps' | 'payouts' | 'onchain_refunds', id: string) =>
    ((await h.runtime.db.knex(table).where({ id }).first()) as { state: string }).state;

  async function sweep(deposits: PaidDeposit[]): Promise<void> {
    const [id] = await planSweeps(h.checkout);
    assert.ok(id, `a sweep of ${deposits.length} deposit(s)`);
    await h.local.test.mine({ blocks: 1 });
    await h.until('the sweep sent', async () => (await stateOf('sweeps', id)) !== 'planned');
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await stateOf('sweeps', id)) === 'final');
  }

  async function payoutFinal(id: string): Promise<void> {
    await h.until('the payout sent', async () => (await stateOf('payouts', id)) === 'sent');
    await h.local.test.mine({ blocks: 64 });
    await h.until('the payout final', async () => (await stateOf('payouts', id)) === 'final');
  }

  /** The refund's refusal: its error, or a failure naming what was accepted instead. */
  async function refused(paymentId: string, amount?: string): Promise<ApiError> {
    try {
      const answer = await refundPayment(deps(), scope(), paymentId, amount === undefined ? {} : { amount });
      assert.fail(`the refund was accepted: ${JSON.stringify(answer.body.refund)}`);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return err;
    }
  }

  it('refundPayment: a payment in a planned or sent payout is refused 409 invalid_state, and only the payout lands', async () => {
    h = await startCollectedHarness(get().db);
    const d = await paidDeposit(h, 10_000_000n, 0n);
    await sweep([d]);
    const [payoutId] = await planPayouts(h.checkout);
    assert.ok(payoutId);

    const planned = await refused(d.paymentId);
    assert.equal(planned.code, 'invalid_state');
    assert.match(planned.message, new RegExp(`being paid out in payout ${payoutId}`));
    assert.equal(await unpaid(), 0n, 'the planned payout reserves what it pays');

    await h.until('the payout sent', async () => (await stateOf('payouts', payoutId)) === 'sent');
    assert.equal((await refused(d.paymentId, '1')).code, 'invalid_state');

    await payoutFinal(payoutId);
    const paid = await refused(d.paymentId);
    assert.equal(paid.code, 'invalid_state');
    assert.match(paid.message, new RegExp(`paid out in payout ${payoutId}`));

    assert.equal(await h.balance(h.payoutAddress), 10_000_000n);
    assert.equal(await h.balance(buyer), 0n);
    assert.equal(await unpaid(), 0n);
    assert.deepEqual(await h.runtime.db.knex('onchain_refunds').where({ payment_id: d.paymentId }), []);
  });

  it("refundPayment: a paid-out payment is refused although another payment's payable is unpaid; that one is paid out in full", async () => {
    h = await startCollectedHarness(get().db);
    const first = await paidDeposit(h, 10_000_000n, 0n);
    await sweep([first]);
    const [firstPayout] = await planPayouts(h.checkout);
    await payoutFinal(firstPayout!);
    const second = await paidDeposit(h, 10_000_000n, 0n);
    assert.equal(await unpaid(), 10_000_000n, "the second payment's payable");

    const error = await refused(first.paymentId);
    assert.equal(error.code, 'invalid_state');
    assert.match(error.message, new RegExp(`paid out in payout ${firstPayout}`));
    assert.equal(await unpaid(), 10_000_000n, 'nothing reserved');

    await sweep([second]);
    const [secondPayout] = await planPayouts(h.checkout);
    await payoutFinal(secondPayout!);
    assert.equal(await h.balance(h.payoutAddress), 20_000_000n);
    assert.equal(await unpaid(), 0n, 'never below zero');
    assert.equal(await h.balance(buyer), 0n);
  });

  it('refundPayment then planPayouts: a payment waits while its refund is open, then is paid out what the refund left', async () => {
    h = await startCollectedHarness(get().db);
    const d = await paidDeposit(h, 6_000_000n, 0n);
    await sweep([d]);
    const answer = await refundPayment(deps(), scope(), d.paymentId, { amount: '2000000' });
    assert.deepEqual(await planPayouts(h.checkout), [], 'a payment waits while a refund of it is open');
    await claimRefund(deps(), new URL(answer.body.refund!.claim_url!).hash.slice(1), buyer);
    await h.until(
      'the refund sent',
      async () => (await stateOf('onchain_refunds', answer.body.refund!.refund_id)) === 'sent',
    );
    await h.local.test.mine({ blocks: 64 });
    await h.until(
      'the refund final',
      async () => (await stateOf('onchain_refunds', answer.body.refund!.refund_id)) === 'final',
    );
    const [payoutId] = await planPayouts(h.checkout);
    const items = (await h.runtime.db.knex('payout_items').where({ payout_id: payoutId })) as { net: string }[];
    assert.deepEqual(
      items.map((i) => i.net),
      ['4000000'],
      'the payout pays what the refund left',
    );
    await payoutFinal(payoutId!);
    assert.equal(await h.balance(buyer), 2_000_000n);
    assert.equal(await h.balance(h.payoutAddress), 4_000_000n);
    assert.equal(await unpaid(), 0n);
  });

  it('planPayouts racing refundPayment on the same payments: each payment is refunded or paid out, never both', async () => {
    h = await startCollectedHarness(get().db);
    const deposits: PaidDeposit[] = [];
    for (let i = 0; i < 4; i++) deposits.push(await paidDeposit(h, 1_000_000n + BigInt(i), 0n));
    await sweep(deposits);
    const outcomes = await Promise.allSettled([
      ...deposits.map((d) => refundPayment(deps(), scope(), d.paymentId, {})),
      planPayouts(h.checkout),
    ]);
    const [planned] = (outcomes.at(-1) as PromiseFulfilledResult<string[]>).value;
    const covered = new Set(
      planned === undefined
        ? []
        : ((await h.runtime.db.knex('payout_items').where({ payout_id: planned })) as { payment_id: string }[]).map(
            (i) => i.payment_id,
          ),
    );
    deposits.forEach((d, i) => {
      const outcome = outcomes[i]!;
      if (covered.has(d.paymentId)) {
        assert.equal(outcome.status, 'rejected', `${d.paymentId} paid out and refunded`);
        assert.equal(((outcome as PromiseRejectedResult).reason as ApiError).code, 'invalid_state');
      } else assert.equal(outcome.status, 'fulfilled', `${d.paymentId} neither paid out nor refunded`);
    });
    assert.equal(await unpaid(), 0n, 'every payment is either reserved by its refund or by the payout');
    const reserved = await listLedgerEntries(h.runtime.db.knex, {
      merchantId: h.merchantId,
      kinds: ['refunded', 'payout_reserved'],
    });
    assert.equal(
      reserved.reduce((s, e) => s + e.amount, 0n),
      deposits.reduce((s, d) => s + d.payable, 0n),
    );
  });
});
