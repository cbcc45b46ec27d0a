import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { callAs, createPerson, sessionFor } from './people.js';

const BODY = { amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'try_checkout' };

describeEachDatabase('dashboard.createDashboardTestPayment', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
  });
  after(() => d.close());

  const create = (body: unknown, live = false) => m.call('POST', '/v1/dashboard/test-payment', { body, live });

  it('createDashboardTestPayment creates a test payment and answers its checkout URL', async () => {
    const created = await expectJson<{ paymentId: string; gatewayUrl: string; status: string }>(
      await create(BODY),
      201,
    );
    assert.equal(created.status, 'pending');
    assert.ok(created.gatewayUrl.endsWith(`/pay/${created.paymentId}`), created.gatewayUrl);
    const snapshot = await expectJson<{ live: boolean; status: string; reference_id: string }>(
      await m.call('GET', `/v1/dashboard/payments/${created.paymentId}`),
      200,
    );
    assert.deepEqual(
      [snapshot.live, snapshot.status, snapshot.reference_id],
      [false, 'requires_action', 'try_checkout'],
    );
  });

  it('createDashboardTestPayment is test mode only: 403 forbidden in live mode, nothing created', async () => {
    const message = await expectError(await create(BODY, true), 403, 'forbidden');
    assert.match(message, /test mode/);
    const list = await expectJson<{ data: unknown[] }>(
      await m.call('GET', '/v1/dashboard/payments', { live: true }),
      200,
    );
    assert.equal(list.data.length, 0);
  });

  it('createDashboardTestPayment refuses a body createPayment refuses: 400 params_validation', async () => {
    await expectError(
      await create({ ...BODY, amount: { unit: 'iso4217/USD', value: '0125' } }),
      400,
      'params_validation',
    );
    await expectError(await create({ amount: BODY.amount }), 400, 'params_validation');
  });

  it('createDashboardTestPayment is refused to a viewer: 403 forbidden', async () => {
    const viewer = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role: 'viewer' });
    const session = await sessionFor(d.harness, viewer);
    const res = await callAs(d.harness, session, 'POST', '/v1/dashboard/test-payment', {
      body: BODY,
      merchantId: m.account.merchantId,
    });
    await expectError(res, 403, 'forbidden');
  });
});
