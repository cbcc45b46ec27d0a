import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

describe('dashboard.getDashboardPayment', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  it('getDashboardPayment answers the payment’s full snapshot, as the merchant API’s getPayment does', async () => {
    const id = await m.createPayment();
    const snapshot = await expectJson<Record<string, unknown>>(
      await m.call('GET', `/v1/dashboard/payments/${id}`),
      200,
    );
    const merchant = await expectJson<Record<string, unknown>>(await m.call('GET', `/v1/merchant/payment/${id}`), 200);
    assert.deepEqual(snapshot, merchant);
    assert.equal(snapshot.payment_id, id);
    assert.equal(snapshot.status, 'requires_action');
  });

  it('getDashboardPayment answers an overdue payment as expired', async () => {
    const body = { amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'late' };
    const { paymentId } = await expectJson<{ paymentId: string }>(
      await m.call('POST', '/v1/merchant/payment', { body }),
      201,
    );
    d.harness.clock.advance(31 * 60_000 + d.harness.runtime.expiryGraceMs);
    const snapshot = await expectJson<{ status: string }>(
      await m.call('GET', `/v1/dashboard/payments/${paymentId}`),
      200,
    );
    assert.equal(snapshot.status, 'expired');
  });

  it('getDashboardPayment answers 404 payment_not_found for the other mode, another merchant or an unknown id', async () => {
    const id = await m.createPayment();
    await expectError(await m.call('GET', `/v1/dashboard/payments/${id}`, { live: true }), 404, 'payment_not_found');
    const other = await d.merchant();
    await expectError(await other.call('GET', `/v1/dashboard/payments/${id}`), 404, 'payment_not_found');
    await expectError(await m.call('GET', '/v1/dashboard/payments/xyz'), 404, 'payment_not_found');
  });
});
