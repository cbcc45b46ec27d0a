import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

describe('dashboard.cancelDashboardPayment', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const cancel = (id: string, body?: unknown, live = false) =>
    m.call('POST', `/v1/dashboard/payments/${id}/cancel`, { body, live });

  it('cancelDashboardPayment cancels an unpaid payment with the reason, idempotently, sending payment.cancelled', async () => {
    await m.createEndpoint();
    const id = await m.createPayment();
    const snapshot = await expectJson<{
      status: string;
      payment_state_version: number;
      cancelled: { cancelled_by: string; cancellation_reason: string | null };
    }>(await cancel(id, { reason: 'out of stock' }), 200);
    assert.deepEqual(
      [
        snapshot.status,
        snapshot.payment_state_version,
        snapshot.cancelled.cancelled_by,
        snapshot.cancelled.cancellation_reason,
      ],
      ['cancelled', 1, 'merchant', 'out of stock'],
    );
    const again = await expectJson<{ payment_state_version: number }>(await cancel(id), 200);
    assert.equal(again.payment_state_version, 1, 'no new version');
    await d.drain();
    assert.deepEqual(
      m.received().map((r) => (JSON.parse(r.body) as { type: string }).type),
      ['payment.created', 'payment.cancelled'],
    );
  });

  it('cancelDashboardPayment answers 409 invalid_state once the buyer committed funds', async () => {
    const id = await m.createPayment();
    await expectJson(
      await m.call('POST', `/v1/dashboard/payments/${id}/simulate`, { body: { to: 'processing' } }),
      200,
    );
    await expectError(await cancel(id), 409, 'invalid_state');
  });

  it('cancelDashboardPayment refuses a bad body naming the field, and another mode’s payment with 404', async () => {
    const id = await m.createPayment();
    const res = await cancel(id, { reason: 'x'.repeat(501) });
    await expectError(res.clone(), 400, 'params_validation');
    assert.equal(((await res.json()) as { param?: string }).param, 'reason');
    await expectError(await cancel(id, {}, true), 404, 'payment_not_found');
  });
});
