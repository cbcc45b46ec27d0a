import assert from 'node:assert/strict';
import { createPayment, expectError, expectJson, simulate, startHarness, type Harness } from './harness.js';

/** POST /v1/payments/{id}/cancel: `cancelPayment` in WalletConnect Pay's shape (docs/decisions.md §28). */
describe('merchant.cancelPaymentAlias', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const cancel = (id: string, body?: unknown) => h.call('POST', `/v1/payments/${id}/cancel`, { body });

  it('200 {paymentId, status, cancelledReason, cancelledAt}; again unchanged; recorded as the merchant’s cancel', async () => {
    const { paymentId } = await createPayment(h);
    const at = new Date(h.clock.now()).toISOString();
    const expected = { paymentId, status: 'cancelled', cancelledReason: 'cancelled_by_merchant', cancelledAt: at };
    assert.deepEqual(await expectJson(await cancel(paymentId), 200), expected);
    h.clock.advance(1_000);
    assert.deepEqual(await expectJson(await cancel(paymentId, { reason: 'twice' }), 200), expected);
    const snapshot = await expectJson<{ cancelled: { cancelled_by: string } }>(
      await h.call('GET', `/v1/merchant/payment/${paymentId}`),
      200,
    );
    assert.equal(snapshot.cancelled.cancelled_by, 'merchant');
  });

  it('409 invalid_state once the payment is processing; 404 for an unknown id', async () => {
    const { paymentId } = await createPayment(h);
    await simulate(h, paymentId, 'processing');
    await expectError(await cancel(paymentId), 409, 'invalid_state');
    await expectError(await cancel('pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'payment_not_found');
  });
});
