/**
 * Options of a collected-mode merchant (docs/decisions.md §22.2): every option pays the payment's deposit address,
 * only in assets a deposit may hold, and the claim records the settlement amount net of the fee.
 */
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectJson } from './harness.js';
import {
  SETTLEMENT,
  signAction,
  startCheckoutHarness,
  typedDataOf,
  type CheckoutHarness,
  type StatusAnswer,
} from './checkout.js';

describe('gateway getPaymentOptions: collected settlement', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  const fee = {
    kind: 'base_plus_percent',
    base: { unit: 'iso4217/USD', value: '30' },
    percent: { numerator: '29', denominator: '1000' },
  };

  before(async () => {
    h = await startCheckoutHarness({ merchant: { feeConfig: fee } });
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
  });
  after(() => h.close());

  const depositAddress = async (paymentId: string, chain: string): Promise<string> => {
    const row = await h.runtime.db
      .knex('deposit_addresses')
      .where({ payment_id: paymentId, chain_caip2: chain })
      .first();
    assert.ok(row, `a deposit address of ${paymentId} on ${chain}`);
    return row.address as string;
  };

  it('an EIP-3009 option pays the deposit address; the payment succeeds with the settlement amount net of the fee', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const answer = await h.options(paymentId, [buyer.caip10]);
    // The buyer holds TUSD and ether; ether is not a deposit asset.
    assert.deepEqual(
      answer.options!.map((o) => o.amount.unit),
      [`caip19/${h.tusd}`],
    );
    const option = answer.options![0]!;
    const deposit = await depositAddress(paymentId, 'eip155:31337');
    assert.equal(getAddress(typedDataOf(option).message.to as string), deposit);
    assert.notEqual(deposit, getAddress(SETTLEMENT));

    const merchantBefore = await h.tusdBalance(SETTLEMENT);
    const signature = await signAction(buyer, option);
    await expectJson<StatusAnswer>(await h.confirm(paymentId, { optionId: option.id, results: [signature] }), 200);
    await h.settle(paymentId, 'succeeded');
    assert.equal(await h.tusdBalance(deposit), 12_500_000n);
    assert.equal(await h.tusdBalance(SETTLEMENT), merchantBefore);

    const stages = (await findPayment(h.runtime.db.knex, paymentId))!.stages;
    // 12.5 TUSD minus the fee (0.30 USD = 300000 units, plus 2.9 % of 12500000 = 362500): 12500000 − 662500.
    assert.deepEqual(stages.processing?.settlement_amount, { unit: `caip19/${h.tusd}`, value: '11837500' });
    assert.equal(stages.processing?.fee?.total_amount.value, '662500');
  });

  it('a second listing keeps the same deposit address', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const first = typedDataOf((await h.options(paymentId, [buyer.caip10])).options![0]!).message.to;
    const second = typedDataOf((await h.options(paymentId, [buyer.caip10])).options![0]!).message.to;
    assert.equal(first, second);
    assert.equal(getAddress(first as string), await depositAddress(paymentId, 'eip155:31337'));
  });

  it('a Solana account is offered its SPL tokens, not SOL', async () => {
    const buyer = await h.solanaBuyer(100_000_000n, 5_000_000_000n);
    const paymentId = await h.createPayment();
    const answer = await h.options(paymentId, [buyer.caip10]);
    assert.deepEqual(
      answer.options!.map((o) => o.amount.unit),
      [`caip19/${h.solanaTusd}`],
    );
    await depositAddress(paymentId, h.solana.caip2);
  });
});
