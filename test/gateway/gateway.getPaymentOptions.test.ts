import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectError, expectJson } from './harness.js';
import { LOCAL, startCheckoutHarness, type CheckoutHarness, type OptionsAnswer } from './checkout.js';

describe('gateway getPaymentOptions', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h.close());

  const tables = ['payments', 'events', 'payment_claims', 'jobs', 'discrepancies'] as const;
  const counts = async () =>
    Promise.all(tables.map(async (t) => Number((await h.runtime.db.knex(t).count({ n: '*' }).first())?.n)));

  it('offers every configured asset the account holds enough of, and writes nothing', async () => {
    const buyer = await h.buyer(20_000_000n, 10n ** 18n);
    const poor = await h.buyer(1_000_000n, 0n);
    const paymentId = await h.createPayment();
    const before = await counts();
    const version = (await h.runtime.db.knex('payments').where({ id: paymentId }).first()).state_version;
    const answer = await h.options(paymentId, [buyer.caip10, poor.caip10, buyer.caip10.toLowerCase()]);
    const units = answer.options!.map((o) => `${o.account} ${o.amount.unit}`).sort();
    // The poor account holds 1 TUSD (and the faucet's 1 ETH for gas): ether only. Duplicates (any case) count once.
    assert.deepEqual(
      units,
      [
        `${buyer.caip10} caip19/${LOCAL}/erc20:${h.local.testUsd}`,
        `${buyer.caip10} caip19/${LOCAL}/slip44:60`,
        `${poor.caip10} caip19/${LOCAL}/slip44:60`,
      ].sort(),
    );
    assert.equal(answer.info, null);
    assert.equal(answer.collectData, null);
    for (const option of answer.options!) {
      assert.ok(option.id.startsWith('opt_') && option.id.length <= 65536);
      assert.equal(option.collectData, null);
      assert.ok(option.etaS >= 1);
    }
    assert.deepEqual(await counts(), before);
    assert.equal((await h.runtime.db.knex('payments').where({ id: paymentId }).first()).state_version, version);
  });

  it('ignores accounts of namespaces and chains it does not serve, and refuses malformed ones', async () => {
    const paymentId = await h.createPayment();
    const answer = await h.options(paymentId, [
      'cosmos:cosmoshub-4:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0',
      'eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    ]);
    assert.deepEqual(answer.options, []);
    const message = await expectError(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/options`, {
        body: { accounts: ['eip155:31337:0x1234'] },
      }),
      400,
      'params_validation',
    );
    assert.match(message, /accounts/);
  });

  it('includePaymentInfo=true answers the payment information', async () => {
    const paymentId = await h.createPayment();
    const answer = await h.options(
      paymentId,
      [`${LOCAL}:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`],
      '?includePaymentInfo=true',
    );
    assert.equal(answer.info?.status, 'requires_action');
    assert.deepEqual(
      { unit: answer.info?.amount.unit, value: answer.info?.amount.value },
      { unit: 'iso4217/USD', value: '1250' },
    );
    assert.equal(answer.info?.merchant.name, 'Test merchant');
  });

  it('answers 409 invalid_state for a cancelled payment and 410 payment_expired once it expired', async () => {
    const buyer = await h.buyer();
    const cancelled = await h.createPayment();
    await expectJson(await h.call('POST', `/v1/gateway/payment/${cancelled}/cancel`), 200);
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${cancelled}/options`, { body: { accounts: [buyer.caip10] } }),
      409,
      'invalid_state',
    );
    const expiring = await h.createPayment({ expiresInSeconds: 60 });
    h.clock.advance(60_000);
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${expiring}/options`, { body: { accounts: [buyer.caip10] } }),
      410,
      'payment_expired',
    );
  });

  it('offers nothing on a chain where the merchant has no settlement address', async () => {
    const bare = await startCheckoutHarness({ merchant: { settlementAddresses: {} } });
    try {
      const buyer = await bare.buyer();
      const answer: OptionsAnswer = await bare.options(await bare.createPayment(), [buyer.caip10]);
      assert.deepEqual(answer.options, []);
    } finally {
      await bare.close();
    }
  });
});
