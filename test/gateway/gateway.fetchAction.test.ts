import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectError, expectJson, unknownPayment } from './harness.js';
import { startCheckoutHarness, type CheckoutHarness } from './checkout.js';

describe('gateway fetchAction', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h.close());

  const fetchAction = (paymentId: string, body: unknown) =>
    h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, { body });

  it('refuses data that is not a build action of the option, and an option that is not this payment’s', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    // EVM options hold wallet RPC actions only: there is nothing to build.
    const message = await expectError(
      await fetchAction(paymentId, { optionId: option.id, data: 'bld_x' }),
      400,
      'params_validation',
    );
    assert.match(message, /not a build action/);
    const other = await h.createPayment();
    await expectError(await fetchAction(other, { optionId: option.id, data: 'bld_x' }), 400, 'params_validation');
    await expectError(
      await fetchAction(unknownPayment, { optionId: option.id, data: 'bld_x' }),
      404,
      'payment_not_found',
    );
    await expectError(await fetchAction(paymentId, { optionId: option.id }), 400, 'params_validation');
  });

  it('answers 409 invalid_state once the payment is cancelled and 410 once it expired', async () => {
    const buyer = await h.buyer();
    const cancelled = await h.createPayment();
    const option = await h.optionFor(cancelled, buyer, h.tusd);
    await expectJson(await h.call('POST', `/v1/gateway/payment/${cancelled}/cancel`), 200);
    await expectError(await fetchAction(cancelled, { optionId: option.id, data: 'bld_x' }), 409, 'invalid_state');
    const expiring = await h.createPayment({ expiresInSeconds: 60 });
    const late = await h.optionFor(expiring, buyer, h.tusd);
    h.clock.advance(60_000);
    await expectError(await fetchAction(expiring, { optionId: late.id, data: 'bld_x' }), 410, 'payment_expired');
  });
});
