/**
 * Issue 31 finding 1 (docs/decisions.md §26.2): once money has arrived at a collected payment's deposit address, the
 * buyer can no longer cancel it (409 invalid_state), so the page can never end on "Nothing was paid" while the merchant
 * holds part of the amount. Both databases: the refusal reads the payment's transfers under the payment's row lock.
 */
import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startDetectionHarness, type DetectionHarness } from '../settlement/detection.js';
import { expectError, expectJson } from './harness.js';

describeEachDatabase('gateway.cancelPayment of a partly paid payment', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
  });
  after(() => h.close());
  beforeEach(() => h.startAtHead());

  const cancel = (id: string) => h.call('POST', `/v1/gateway/payment/${id}/cancel`, { body: {} });

  it('409 invalid_state once 5 of 12.50 TUSD arrived: the payment stays open and the money stays counted', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    await h.pay(await h.buyer(), deposit, 5_000_000n);
    await h.scan();
    const refused = await expectError(await cancel(paymentId), 409, 'invalid_state');
    assert.match(refused, /received/i);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
  });

  it('200 while nothing has arrived yet (an address given out is not money received)', async () => {
    const paymentId = await h.createPayment();
    await h.depositFor(paymentId);
    const answer = (await expectJson(await cancel(paymentId), 200)) as { status: string };
    assert.equal(answer.status, 'cancelled');
  });
});
