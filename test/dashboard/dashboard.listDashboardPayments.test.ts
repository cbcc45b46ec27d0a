import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, simulate, usd } from '../merchant/harness.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';

interface Page {
  data: { payment_id: string; reference_id: string; status: string; live: boolean }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describeEachDatabase('dashboard.listDashboardPayments', (get) => {
  let d: Dashboard;
  let m: Merchant;
  /** This merchant's test payments, oldest first: order_a, order_b, order_a, "order, with comma". */
  const ids: string[] = [];
  const t0 = Date.UTC(2026, 1, 18, 10, 0, 0);

  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    const h = d.harness.withHeaders({ 'Api-Key': m.account.testKey, 'Merchant-Id': m.account.merchantId });
    for (const [i, ref] of ['order_a', 'order_b', 'order_a', 'order, with comma'].entries()) {
      d.harness.clock.set(t0 + i * 60_000);
      ids.push((await createPayment(h, { ...usd(), referenceId: ref, expiresAt: t0 / 1000 + 86_400 })).paymentId);
    }
    await simulate(h, ids[2]!, 'processing', 'succeeded');
    await d.drain();
    await expectJson(
      await m.call('POST', '/v1/merchant/payment', { body: { ...usd(), referenceId: 'order_a' }, live: true }),
      201,
    );
  });
  after(() => d.close());

  const list = async (query = '', live = false) =>
    expectJson<Page>(await m.call('GET', `/v1/dashboard/payments${query}`, { live }), 200);

  it('listDashboardPayments lists the mode’s payments newest first as merchant PaymentSnapshots', async () => {
    const page = await list();
    assert.deepEqual(
      page.data.map((p) => p.payment_id),
      [...ids].reverse(),
    );
    assert.ok(page.data.every((p) => p.live === false));
    assert.equal(page.hasMore, false);
    assert.equal(page.nextCursor, null);
    const live = await list('', true);
    assert.deepEqual(
      live.data.map((p) => [p.reference_id, p.live]),
      [['order_a', true]],
    );
  });

  it('listDashboardPayments filters by exact referenceId, combined with status', async () => {
    assert.deepEqual(
      (await list('?referenceId=order_a')).data.map((p) => p.payment_id),
      [ids[2], ids[0]],
    );
    assert.deepEqual(
      (await list(`?referenceId=${encodeURIComponent('order, with comma')}`)).data.map((p) => p.payment_id),
      [ids[3]],
    );
    assert.deepEqual((await list('?referenceId=order')).data, [], 'no partial match');
    assert.deepEqual((await list('?referenceId=ORDER_A')).data, [], 'case-sensitive');
    assert.deepEqual(
      (await list('?referenceId=order_a&status=succeeded')).data.map((p) => p.payment_id),
      [ids[2]],
    );
    assert.deepEqual(
      (await list('?status=succeeded&settled=true')).data.map((p) => p.payment_id),
      [ids[2]],
      'a test payment settles right after it succeeds',
    );
  });

  it('listDashboardPayments pages with the cursor, keeping the filters', async () => {
    const first = await list('?limit=1&referenceId=order_a');
    assert.deepEqual([first.data[0]!.payment_id, first.hasMore, first.nextCursor], [ids[2], true, ids[2]]);
    const second = await list(`?limit=1&referenceId=order_a&startingAfter=${first.nextCursor}`);
    assert.deepEqual([second.data[0]!.payment_id, second.hasMore, second.nextCursor], [ids[0], false, null]);
  });

  it('listDashboardPayments refuses a bad query naming the parameter, and an unknown cursor with 404', async () => {
    const res = await m.call('GET', '/v1/dashboard/payments?limit=101');
    await expectError(res.clone(), 400, 'params_validation');
    assert.equal(((await res.json()) as { param?: string }).param, 'limit');
    const empty = await m.call('GET', '/v1/dashboard/payments?referenceId=');
    await expectError(empty.clone(), 400, 'params_validation');
    assert.equal(((await empty.json()) as { param?: string }).param, 'referenceId');
    await expectError(await m.call('GET', '/v1/dashboard/payments?sort=asc'), 400, 'invalid_params');
    // Another last character than the id's own: an id ending in X would otherwise name itself (1 run in 62).
    const unknown = `${ids[0]!.slice(0, -1)}${ids[0]!.endsWith('X') ? 'Y' : 'X'}`;
    await expectError(await m.call('GET', `/v1/dashboard/payments?startingAfter=${unknown}`), 404, 'payment_not_found');
  });
});
