/**
 * Options of a collected-mode merchant (docs/decisions.md §22.2): every option pays the payment's deposit address,
 * only in assets a deposit may hold, and the claim records the settlement amount net of the fee.
 */
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import {
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Address,
} from '@solana/kit';
import { associatedTokenAccount } from '../../server/src/chains/solana/transfer.js';
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

  /** TUSD held in the owner's associated token account; none when the account was never created. */
  const solanaTusdBalance = async (owner: string): Promise<bigint> => {
    const ata = await associatedTokenAccount(owner as Address, h.solana.mints.tusd.address);
    const account = await h.chains.solana[0]!.rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
    return account.value ? Buffer.from(account.value.data[0], 'base64').readBigUInt64LE(64) : 0n;
  };

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

  it('a Solana account is offered its SPL tokens, not SOL, and its transfer lands at the deposit address', async () => {
    const buyer = await h.solanaBuyer(100_000_000n, 5_000_000_000n);
    const paymentId = await h.createPayment();
    const answer = await h.options(paymentId, [buyer.caip10]);
    assert.deepEqual(
      answer.options!.map((o) => o.amount.unit),
      [`caip19/${h.solanaTusd}`],
    );
    const option = answer.options![0]!;
    const deposit = await depositAddress(paymentId, h.solana.caip2);
    const merchant = h.solana.settlementOwner.address;
    const merchantBefore = await solanaTusdBalance(merchant);

    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    const fetched = await expectJson<{ actions: { data: { params: unknown[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
      }),
      200,
    );
    const { transaction } = fetched.actions[0]!.data.params[0] as { transaction: string };
    const signed = await partiallySignTransaction(
      [buyer.signer.keyPair],
      getTransactionDecoder().decode(Buffer.from(transaction, 'base64')),
    );
    await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [getBase64EncodedWireTransaction(signed)] }),
      200,
    );
    await h.settle(paymentId, 'succeeded');
    assert.equal(await solanaTusdBalance(deposit), 12_500_000n);
    assert.equal(await solanaTusdBalance(merchant), merchantBefore);
  });
});
