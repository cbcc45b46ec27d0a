/**
 * A keyed refund's stored answer is a payment snapshot (docs/decisions.md §30.3): for a payment with a buyer it must
 * not keep the buyer in plaintext in `idempotency_keys` for the key's 24 hours; the replay still answers it.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectJson, simulate, startHarness, type Created, type Harness } from './harness.js';

const buyer = { email: 'refund.buyer@example.com', name: 'Refund Buyer' };

describeEachDatabase('merchant.refundPayment of a payment with a buyer', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  it('a keyed refund stores its answer without the buyer, and its replay answers the buyer', async () => {
    const body = { amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'order_refund_buyer', buyer };
    const { paymentId } = await expectJson<Created>(await h.call('POST', '/v1/merchant/payment', { body }), 201);
    await simulate(h, paymentId, 'processing', 'succeeded');
    const refund = () =>
      h.call('POST', `/v1/merchant/payment/${paymentId}/refund`, {
        body: { reason: 'Returned' },
        headers: { 'Idempotency-Key': 'refund-buyer-1' },
      });
    const first = await expectJson<{ buyer: unknown }>(await refund(), 200);
    assert.deepEqual(first.buyer, buyer);
    const stored = (await h.runtime.db.knex('idempotency_keys').where({ key: 'refund-buyer-1' }).first()) as {
      response_body: string;
    };
    assert.doesNotMatch(stored.response_body, /refund\.buyer@example\.com|Refund Buyer/);
    const replay = await refund();
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual((await expectJson<{ buyer: unknown }>(replay, 200)).buyer, buyer);
  });
});
