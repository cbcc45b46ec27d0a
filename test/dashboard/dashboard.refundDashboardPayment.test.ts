import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

describe('dashboard.refundDashboardPayment', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const refund = (id: string, body?: unknown) => m.call('POST', `/v1/dashboard/payments/${id}/refund`, { body });
  const simulate = async (id: string, to: string) =>
    expectJson(await m.call('POST', `/v1/dashboard/payments/${id}/simulate`, { body: { to } }), 200);

  it('refundDashboardPayment records a refund of a succeeded payment once', async () => {
    const id = await m.createPayment();
    await simulate(id, 'processing');
    await simulate(id, 'succeeded');
    const snapshot = await expectJson<{ status: string; refunded: { reason: string | null } }>(
      await refund(id, { reason: 'returned' }),
      200,
    );
    assert.deepEqual([snapshot.status, snapshot.refunded.reason], ['succeeded', 'returned']);
    await expectError(await refund(id), 409, 'already_refunded');
  });

  it('refundDashboardPayment answers 409 payment_not_succeeded for an unpaid payment, 404 for an unknown one', async () => {
    const id = await m.createPayment();
    await expectError(await refund(id), 409, 'payment_not_succeeded');
    await expectError(await refund('pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'payment_not_found');
  });
});
