import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectJson } from './harness.js';
import {
  LOCAL,
  SETTLEMENT,
  signAction,
  startCheckoutHarness,
  type CheckoutHarness,
  type StatusAnswer,
} from './checkout.js';
import { receiptOf } from '../helpers/wait.js';

describe('gateway confirm: gasless EIP-3009 payment on anvil', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  const fee = {
    kind: 'base_plus_percent',
    base: { unit: 'iso4217/USD', value: '30' },
    percent: { numerator: '29', denominator: '1000' },
  };

  before(async () => {
    h = await startCheckoutHarness({ merchant: { feeConfig: fee } });
  });
  after(() => h.close());

  const tokenBalance = (address: string) => h.tusdBalance(address);

  it('options, a wallet signature, confirm, processing, then succeeded with every event snapshot', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    assert.equal(option.account, buyer.caip10);
    // TUSD is pegged to USD: 12.50 USD is 12.5 TUSD, with no rate and so no quote expiry.
    assert.equal(option.amount.value, '12500000');
    assert.equal(option.amount.display?.assetSymbol, 'TUSD');
    assert.equal(option.amount.display?.decimals, 6);
    assert.equal(option.expiresAt, null);
    assert.ok(option.etaS > 0);
    assert.equal(option.actions.length, 1);

    const merchantBefore = await tokenBalance(SETTLEMENT);
    const signature = await signAction(buyer, option);
    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [signature] }),
      200,
    );
    assert.deepEqual(accepted, { status: 'processing', isFinal: false, pollInMs: 2000, info: null, failureCode: null });
    const info = await expectJson<{ buyer: unknown }>(await h.call('GET', `/v1/gateway/payment/${paymentId}`), 200);
    assert.deepEqual(info.buyer, {
      accountCaip10: buyer.caip10,
      accountProviderName: 'wallet test',
      accountProviderIcon: null,
    });

    // The relay, then the watch at depth (one confirmation on the local chain).
    const status = await h.settle(paymentId, 'succeeded');
    assert.equal(await tokenBalance(SETTLEMENT), merchantBefore + 12_500_000n);
    assert.equal(await tokenBalance(buyer.account.address), 100_000_000n - 12_500_000n);
    assert.equal(status.status, 'succeeded');
    assert.match(status.info!.txId, /^0x[0-9a-f]{64}$/);
    assert.equal(status.info!.optionAmount.unit, `caip19/${h.tusd}`);
    assert.equal(status.info!.optionAmount.value, '12500000');
    const receipt = await receiptOf(h.local.clients.public, status.info!.txId as `0x${string}`);
    assert.equal(receipt.status, 'success');

    const events = (await h.runtime.db.knex('events').where({ payment_id: paymentId }).orderBy('state_version')).map(
      (e: { payload: string }) => JSON.parse(e.payload) as { type: string; data: Record<string, unknown> },
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment.created', 'payment.processing', 'payment.succeeded', 'payment.settled'],
    );
    const processing = events[1]!.data;
    assert.equal(processing.status, 'processing');
    assert.equal(processing.payment_state_version, 1);
    assert.equal(processing.live, false);
    assert.equal(processing.payment_id, paymentId);
    const stage = processing.processing as Record<string, unknown>;
    assert.deepEqual(stage.option_amount, { unit: `caip19/${h.tusd}`, value: '12500000' });
    assert.deepEqual(stage.settlement_amount, { unit: `caip19/${h.tusd}`, value: '12500000' });
    assert.equal(stage.buyer_caip10, buyer.caip10);
    assert.equal(stage.chain_caip2, LOCAL);
    assert.match(stage.processing_at as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // 0.30 USD base = 300000 TUSD units; 2.9 % of 12500000 = 362500; total 662500.
    assert.deepEqual(stage.fee, {
      kind: 'base_plus_percent',
      base_amount: { unit: `caip19/${h.tusd}`, value: '300000' },
      percent: { numerator: '29', denominator: '1000' },
      percent_amount: { unit: `caip19/${h.tusd}`, value: '362500' },
      total_amount: { unit: `caip19/${h.tusd}`, value: '662500' },
    });
    for (const empty of ['success', 'failed', 'cancelled', 'expired', 'settled']) assert.equal(processing[empty], null);

    const succeeded = events[2]!.data;
    assert.equal(succeeded.status, 'succeeded');
    assert.equal(succeeded.payment_state_version, 2);
    assert.deepEqual(succeeded.processing, stage);
    assert.equal((succeeded.success as { tx_id: string }).tx_id, status.info!.txId);
    assert.equal(events[3]!.data.status, 'succeeded');
    assert.equal(events[3]!.data.payment_state_version, 3);
  });

  it('a repeated confirm answers the current status and does not relay again', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const signature = await signAction(buyer, option);
    const body = { optionId: option.id, results: [signature] };
    const relayer = h.local.clients.relayer.account.address;
    const sentBefore = await h.local.clients.public.getTransactionCount({ address: relayer });
    await expectJson(await h.confirm(paymentId, body), 200);
    // The object form of the same result is the same confirm.
    const again = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [{ type: 'walletRpc', data: [signature] }] }),
      200,
    );
    assert.equal(again.status, 'processing', 'second confirm');
    // The relay, then the watch at depth, which may need its recheck if the receipt is not there at once.
    await h.settle(paymentId, 'succeeded');
    const final = await expectJson<StatusAnswer>(await h.confirm(paymentId, body), 200);
    assert.equal(final.status, 'succeeded', 'third confirm');
    await h.drain();
    assert.equal(await h.local.clients.public.getTransactionCount({ address: relayer }), sentBefore + 1, 'relayed');
    assert.equal(await tokenBalance(buyer.account.address), 100_000_000n - 12_500_000n);
  });
});
