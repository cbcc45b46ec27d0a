import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { LOCAL, startCheckoutHarness, type CheckoutHarness } from './checkout.js';

describe('gateway getPaymentOptions: option expiry', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h.close());

  it('caps a priced option expiresAt at the payment expiresAt and keeps null for a pegged asset', async () => {
    const buyer = await h.buyer();
    // A payment that ends before any quote would: every priced option must end with it (the contract's rule).
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    const payment = await h.runtime.db.knex('payments').where({ id: paymentId }).first();
    const paymentExpiresAt = Math.floor(Number(payment.expires_at) / 1000);
    const answer = await h.options(paymentId, [buyer.caip10]);
    const ether = answer.options!.find((o) => o.amount.unit === `caip19/${LOCAL}/slip44:60`);
    const tusd = answer.options!.find((o) => o.amount.unit === `caip19/${h.tusd}`);
    assert.ok(ether && tusd, JSON.stringify(answer.options));
    assert.equal(ether.expiresAt, paymentExpiresAt);
    assert.equal(tusd.expiresAt, null);
  });
});
