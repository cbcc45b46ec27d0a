import assert from 'node:assert/strict';
import type { Hex } from 'viem';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { parseJson, runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { testRuntime } from '../helpers/runtime.js';
import { expectError, expectJson } from './harness.js';
import {
  LOCAL,
  sendAction,
  startCheckoutHarness,
  withDirectTusd,
  type CheckoutHarness,
  type PaymentOption,
  type StatusAnswer,
} from './checkout.js';

describe('gateway confirm: late confirms and money that does not match', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness({
      chains: withDirectTusd(await sharedChains()),
      config: { PAYGATE_LATE_CONFIRM_GRACE_S: '120' },
    });
  });
  after(() => h.close());

  /**
   * The business clock at the chain's time, so "mined before expiry" means the same to both. A block is mined first:
   * after a snapshot revert the latest block can be minutes old while the next one takes the wall clock's time.
   */
  async function syncClock(): Promise<void> {
    await h.local.test.mine({ blocks: 1 });
    h.clock.set(Number((await h.local.clients.public.getBlock({ blockTag: 'latest' })).timestamp) * 1000);
  }

  const status = async (id: string) =>
    (await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${id}/status`), 200)).status;

  function nativeCall(option: PaymentOption): { to: Hex; data: Hex; value: bigint } {
    const action = option.actions[0]!;
    assert.ok(action.type === 'walletRpc');
    const p = action.data.params[0] as { to: Hex; data: Hex; value: Hex };
    return { to: p.to, data: p.data, value: BigInt(p.value) };
  }

  it('accepts, within the grace period, the confirm of a transfer mined before expiry', async () => {
    await syncClock();
    const buyer = await h.buyer();
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const hash = await sendAction(buyer, option);
    h.clock.advance(61_000);
    // Past expiresAt, the payment still waits for the grace period, and takes no new options.
    assert.equal(await status(paymentId), 'requires_action');
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/options`, { body: { accounts: [buyer.caip10] } }),
      410,
      'payment_expired',
    );
    await expectJson(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 200);
    await h.drain();
    assert.equal(await status(paymentId), 'succeeded');
  });

  it('records a transfer mined after expiry as a late payment and answers payment_expired', async () => {
    await syncClock();
    const buyer = await h.buyer();
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const expiresAt = Math.floor(h.clock.now() / 1000) + 60;
    await h.local.test.setNextBlockTimestamp({ timestamp: BigInt(expiresAt + 10) });
    const hash = await sendAction(buyer, option);
    h.clock.advance(75_000);
    await expectError(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 410, 'payment_expired');
    // After the grace period the payment is expired, and a confirm of the same transfer records nothing new.
    h.clock.advance(120_000);
    assert.equal(await status(paymentId), 'expired');
    await expectError(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 410, 'payment_expired');
    const found = await listDiscrepancies(h.runtime.db.knex, { paymentId, limit: 10 });
    assert.equal(found.length, 1);
    assert.equal(found[0]!.kind, 'late_payment');
    assert.equal(found[0]!.txId, hash);
    assert.equal(found[0]!.receivedValue, option.amount.value);
  });

  it('accepts an overpayment and records the excess; refuses an underpayment and records it', async () => {
    await syncClock();
    const buyer = await h.buyer(0n, 10n ** 18n);
    const over = await h.createPayment();
    const overOption = await h.optionFor(over, buyer, `${LOCAL}/slip44:60`);
    const call = nativeCall(overOption);
    const overHash = await buyer.wallet.sendTransaction({ account: buyer.account, ...call, value: call.value + 1000n });
    await expectJson(await h.confirm(over, { optionId: overOption.id, results: [overHash] }), 200);
    await h.drain();
    assert.equal(await status(over), 'succeeded');

    const under = await h.createPayment();
    const underOption = await h.optionFor(under, buyer, `${LOCAL}/slip44:60`);
    const underCall = nativeCall(underOption);
    const underHash = await buyer.wallet.sendTransaction({
      account: buyer.account,
      ...underCall,
      value: underCall.value - 1n,
    });
    await expectError(
      await h.confirm(under, { optionId: underOption.id, results: [underHash] }),
      400,
      'params_validation',
    );
    assert.equal(await status(under), 'requires_action');

    const [overRow] = await listDiscrepancies(h.runtime.db.knex, { paymentId: over, limit: 10 });
    assert.equal(overRow?.kind, 'overpayment');
    assert.equal(BigInt(overRow!.receivedValue) - BigInt(overRow!.expectedValue), 1000n);
    const [underRow] = await listDiscrepancies(h.runtime.db.knex, { paymentId: under, limit: 10 });
    assert.equal(underRow?.kind, 'underpayment');
    assert.equal(BigInt(underRow!.expectedValue) - BigInt(underRow!.receivedValue), 1n);
  });
});

describe('cli admin discrepancies', function () {
  this.timeout(120_000);

  it('lists the recorded discrepancies as JSON, newest first, filtered by mode', async () => {
    const t = await createTestDatabase('sqlite');
    const runtime = await testRuntime({ db: t.db, config: { DATABASE_URL: t.url } });
    try {
      const { merchantId } = await createMerchantAccount(runtime);
      const payment = await createPayment(runtime, {
        merchantId,
        live: false,
        referenceId: 'order-1',
        amount: { unit: 'iso4217/USD', value: '1250' },
        expiresAt: runtime.now() + 3_600_000,
        successUrl: null,
        errorUrl: null,
      });
      const { insertDiscrepancy } = await import('../../server/src/db/queries/discrepancies.js');
      await insertDiscrepancy(runtime.db.knex, {
        id: 'dsc_1',
        paymentId: payment.id,
        kind: 'late_payment',
        live: false,
        chain: LOCAL,
        txId: `0x${'ab'.repeat(32)}`,
        assetUnit: `caip19/${LOCAL}/slip44:60`,
        expectedValue: '100',
        receivedValue: '100',
        note: 'Transfer mined after the payment expired.',
        createdAt: runtime.now(),
      });
      const env = { DATABASE_URL: t.url };
      const listed = parseJson<{ paymentId: string; kind: string }[]>(
        await runCli(['admin', 'discrepancies', '--mode', 'test', '--json'], env),
      );
      assert.deepEqual(
        listed.map((d) => [d.paymentId, d.kind]),
        [[payment.id, 'late_payment']],
      );
      const live = parseJson<unknown[]>(await runCli(['admin', 'discrepancies', '--mode', 'live', '--json'], env));
      assert.deepEqual(live, []);
    } finally {
      await runtime.close();
      await t.drop();
    }
  });
});
