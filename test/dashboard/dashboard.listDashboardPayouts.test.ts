/**
 * listDashboardPayouts: the request's mode's payouts, newest first, a page at a time, each with the payments it
 * covered (both databases: keyset paging on created_at and id), the merchant API's answer under the session's auth.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { callAs, createPerson, sessionFor } from './people.js';
import { writeSettlement, type SettlementData } from './settlementData.js';

interface Page {
  data: { payout_id: string; state: string; payments: { payment_id: string }[] }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describeEachDatabase('dashboard.listDashboardPayouts', (get) => {
  let d: Dashboard;
  let m: Merchant;
  let s: SettlementData;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    s = await writeSettlement(get().db.knex, m.account.merchantId, Date.UTC(2026, 1, 18, 10));
  });
  after(() => d.close());

  const list = async (query: string, live = true) =>
    expectJson<Page>(await m.call('GET', `/v1/dashboard/payouts${query}`, { live }), 200);

  it('listDashboardPayouts pages newest first through nextCursor, with each payout’s payments', async () => {
    const first = await list('?limit=2');
    assert.deepEqual(
      first.data.map((p) => [p.payout_id, p.state, p.payments.length]),
      [
        [s.payouts.sent, 'sent', 1],
        [s.payouts.final, 'final', 2],
      ],
    );
    assert.equal(first.hasMore, true);
    assert.equal(first.nextCursor, s.payouts.final);
    const second = await list(`?limit=2&startingAfter=${first.nextCursor}`);
    assert.deepEqual(
      second.data.map((p) => [p.payout_id, p.state, p.payments.length]),
      [[s.payouts.failed, 'failed', 0]],
    );
    assert.equal(second.hasMore, false);
    assert.equal(second.nextCursor, null);
    assert.deepEqual(
      await list('', true),
      await expectJson(await m.call('GET', '/v1/merchant/payouts', { live: true }), 200),
    );
  });

  it('listDashboardPayouts shows a session the mode it names; a cursor of the other mode is 404 invalid_params', async () => {
    const viewer = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role: 'viewer' });
    const session = await sessionFor(d.harness, viewer);
    const test = await callAs(d.harness, session, 'GET', '/v1/dashboard/payouts', { merchantId: m.account.merchantId });
    assert.deepEqual(
      (await expectJson<Page>(test, 200)).data.map((p) => p.payout_id),
      [s.testPayout],
    );
    await expectError(
      await m.call('GET', `/v1/dashboard/payouts?startingAfter=${s.testPayout}`, { live: true }),
      404,
      'invalid_params',
    );
    await expectError(await m.call('GET', '/v1/dashboard/payouts?limit=101', { live: true }), 400, 'params_validation');
  });
});
