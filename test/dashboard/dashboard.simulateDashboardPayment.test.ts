import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

describe('dashboard.simulateDashboardPayment', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const simulate = (id: string, to: string, live = false) =>
    m.call('POST', `/v1/dashboard/payments/${id}/simulate`, { body: { to }, live });

  it('simulateDashboardPayment moves a test payment one step, with the simulator’s sample data', async () => {
    const id = await m.createPayment();
    const processing = await expectJson<{ status: string; processing: { chain_caip2: string } }>(
      await simulate(id, 'processing'),
      200,
    );
    assert.deepEqual([processing.status, processing.processing.chain_caip2], ['processing', 'eip155:31337']);
    const succeeded = await expectJson<{ status: string; success: { tx_id: string } }>(
      await simulate(id, 'succeeded'),
      200,
    );
    assert.deepEqual([succeeded.status, succeeded.success.tx_id], ['succeeded', `test:${id}`]);
  });

  it('simulateDashboardPayment answers 409 invalid_state for a step the state machine forbids', async () => {
    const id = await m.createPayment();
    await expectError(await simulate(id, 'succeeded'), 409, 'invalid_state');
  });

  it('simulateDashboardPayment is test mode only: 403 forbidden in live mode', async () => {
    const live = await m.createPayment({ live: true });
    const message = await expectError(await simulate(live, 'processing', true), 403, 'forbidden');
    assert.match(message, /test mode only/);
    const snapshot = await expectJson<{ status: string }>(
      await m.call('GET', `/v1/dashboard/payments/${live}`, { live: true }),
      200,
    );
    assert.equal(snapshot.status, 'requires_action', 'nothing changed');
  });

  it('simulateDashboardPayment refuses an unknown target naming the field', async () => {
    const id = await m.createPayment();
    const res = await simulate(id, 'paid');
    await expectError(res.clone(), 400, 'params_validation');
    assert.equal(((await res.json()) as { param?: string }).param, 'to');
  });
});
