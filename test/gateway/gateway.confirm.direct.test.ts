import assert from 'node:assert/strict';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { expectJson } from './harness.js';
import {
  LOCAL,
  SETTLEMENT,
  sendAction,
  startCheckoutHarness,
  withDirectTusd,
  type CheckoutHarness,
  type StatusAnswer,
} from './checkout.js';

describe('gateway confirm: direct transfers on anvil', () => {
  useChainSnapshots();
  let h: CheckoutHarness;

  before(async () => {
    h = await startCheckoutHarness({ chains: withDirectTusd(await sharedChains()) });
  });
  after(() => h.close());

  const tokenBalance = (address: string) => h.tusdBalance(address);

  it('an ERC-20 transfer the buyer sends, then confirm, then succeeded', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const action = option.actions[0]!;
    assert.equal(action.type, 'walletRpc');
    assert.equal(action.type === 'walletRpc' && action.data.method, 'eth_sendTransaction');
    const merchantBefore = await tokenBalance(SETTLEMENT);
    const hash = await sendAction(buyer, option);

    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [hash] }),
      200,
    );
    assert.equal(accepted.status, 'processing');
    const status = await h.settle(paymentId, 'succeeded');
    assert.equal(status.status, 'succeeded');
    assert.equal(status.info?.txId, hash);
    assert.equal(await tokenBalance(SETTLEMENT), merchantBefore + 12_500_000n);
    const processing = (await h.runtime.db
      .knex('events')
      .where({ payment_id: paymentId, state_version: 1 })
      .first()) as {
      payload: string;
    };
    const data = (JSON.parse(processing.payload) as { data: { processing: Record<string, unknown> } }).data;
    assert.equal(data.processing.buyer_caip10, buyer.caip10);
    assert.equal(data.processing.chain_caip2, LOCAL);
  });

  it('confirm with maxPollMs waits for the final status while the jobs run', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const hash = await sendAction(buyer, option);
    await h.runtime.startBackground();
    try {
      const answer = await expectJson<StatusAnswer>(
        await h.confirm(paymentId, { optionId: option.id, results: [hash] }, '?maxPollMs=20000'),
        200,
      );
      assert.equal(answer.status, 'succeeded');
      assert.equal(answer.isFinal, true);
      assert.equal(answer.info?.txId, hash);
    } finally {
      await h.runtime.stopBackground();
    }
  });

  it('a native transfer priced by a quote carries its expiry and completes the payment', async () => {
    const buyer = await h.buyer(0n, 10n ** 18n);
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, `${LOCAL}/slip44:60`);
    assert.equal(typeof option.expiresAt, 'number');
    assert.ok(option.expiresAt! > Math.floor(h.clock.now() / 1000));
    assert.ok(BigInt(option.amount.value) > 0n);
    const before = await h.local.clients.public.getBalance({ address: SETTLEMENT });
    const hash = await sendAction(buyer, option);
    await expectJson(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 200);
    const status = await h.settle(paymentId, 'succeeded');
    assert.equal(status.status, 'succeeded');
    assert.equal(
      await h.local.clients.public.getBalance({ address: SETTLEMENT }),
      before + BigInt(option.amount.value),
    );
  });

  it('a pending transaction is accepted, and its replacement with the same calldata completes the payment', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const action = option.actions[0]!;
    assert.ok(action.type === 'walletRpc');
    const tx = action.data.params[0] as { to: `0x${string}`; data: `0x${string}` };
    await h.local.test.setAutomine(false);
    try {
      const nonce = await h.local.clients.public.getTransactionCount({ address: buyer.account.address });
      const slow = await buyer.wallet.sendTransaction({
        account: buyer.account,
        to: tx.to,
        data: tx.data,
        nonce,
        gas: 200_000n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      const accepted = await expectJson<StatusAnswer>(
        await h.confirm(paymentId, { optionId: option.id, results: [slow] }),
        200,
      );
      assert.equal(accepted.status, 'processing');
      // The wallet speeds it up: same nonce, same calldata, more gas; the first one never lands.
      const fast = await buyer.wallet.sendTransaction({
        account: buyer.account,
        to: tx.to,
        data: tx.data,
        nonce,
        gas: 200_000n,
        maxFeePerGas: 20_000_000_000n,
        maxPriorityFeePerGas: 10_000_000_000n,
      });
      assert.notEqual(fast, slow);
      await h.local.test.mine({ blocks: 1 });
      const status = await h
        .settle(paymentId, 'succeeded')
        .catch(async () =>
          expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200),
        );
      const row = await h.runtime.db.knex('payments').where({ id: paymentId }).first();
      assert.equal(status.status, 'succeeded', row.failed);
      assert.equal(status.info?.txId, fast);
    } finally {
      await h.local.test.setAutomine(true);
    }
  });
});
