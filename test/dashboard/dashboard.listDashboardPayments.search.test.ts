/**
 * The dashboard's `q` (docs/decisions.md §30.4): whole words of a payment's description and metadata values, every
 * word required, through the list and the CSV export, which also carries what was sold in its own columns.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, usd } from '../merchant/harness.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { parseCsv } from './merchantData.js';

interface Page {
  data: { payment_id: string }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describeEachDatabase('dashboard.listDashboardPayments search', (get) => {
  let d: Dashboard;
  let m: Merchant;
  const ids: Record<string, string> = {};
  const t0 = Date.UTC(2026, 1, 18, 10, 0, 0);

  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    const h = d.harness.withHeaders({ 'Api-Key': m.account.testKey, 'Merchant-Id': m.account.merchantId });
    const made = async (name: string, at: number, extra: Record<string, unknown>) => {
      d.harness.clock.set(at);
      ids[name] = (
        await createPayment(h, { ...usd(), referenceId: name, expiresAt: t0 / 1000 + 86_400, ...extra })
      ).paymentId;
    };
    await made('coffee', t0, {
      description: 'Two Flat white coffees',
      lineItems: [{ name: 'Flat white', quantity: 2, unitAmount: '625' }],
      buyer: { email: 'ada@example.com', name: 'Ada Lovelace' },
      metadata: { order: 'ORD-10482' },
    });
    await made('tea', t0 + 1000, { description: 'A pot of white tea', metadata: { order: 'ORD-20000' } });
    await made('plain', t0 + 2000, {});
  });
  after(() => d.close());

  const found = async (q: string, more = '') =>
    (
      await expectJson<Page>(await m.call('GET', `/v1/dashboard/payments?q=${encodeURIComponent(q)}${more}`), 200)
    ).data.map((p) => p.payment_id);

  it('listDashboardPayments with q finds whole words of descriptions and metadata values, every word required', async () => {
    assert.deepEqual(await found('white'), [ids.tea, ids.coffee]);
    assert.deepEqual(await found('FLAT white'), [ids.coffee]);
    assert.deepEqual(await found('ord-10482'), [ids.coffee]);
    assert.deepEqual(await found('20000'), [ids.tea]);
    assert.deepEqual(await found('whit'), [], 'a part of a word is no word');
    assert.deepEqual(await found('flat tea'), []);
    assert.deepEqual(await found('ada'), [], 'the buyer is not searchable');
  });

  it('listDashboardPayments with q pages with its cursor and combines with referenceId', async () => {
    const first = await expectJson<Page>(await m.call('GET', '/v1/dashboard/payments?q=white&limit=1'), 200);
    assert.deepEqual(
      first.data.map((p) => p.payment_id),
      [ids.tea],
    );
    assert.equal(first.hasMore, true);
    assert.deepEqual(await found('white', `&limit=1&startingAfter=${first.nextCursor}`), [ids.coffee]);
    assert.deepEqual(await found('white', '&referenceId=coffee'), [ids.coffee]);
  });

  it('listDashboardPayments refuses a q without a word with 400 params_validation', async () => {
    await expectError(await m.call('GET', '/v1/dashboard/payments?q=--'), 400, 'params_validation');
  });

  it('exportPayments with q exports the matches with description, lines, metadata and buyer columns', async () => {
    const res = await m.call('GET', '/v1/dashboard/payments/export?q=flat');
    assert.equal(res.status, 200);
    const [header, ...rows] = parseCsv(await res.text());
    assert.equal(rows.length, 1);
    const row = Object.fromEntries(header!.map((column, i) => [column, rows[0]![i]]));
    assert.equal(row.payment_id, ids.coffee);
    assert.equal(row.description, 'Two Flat white coffees');
    assert.deepEqual(JSON.parse(row.line_items!), [{ name: 'Flat white', quantity: 2, unit_amount: '625' }]);
    assert.deepEqual(JSON.parse(row.metadata!), { order: 'ORD-10482' });
    assert.equal(row.buyer_email, 'ada@example.com');
    assert.equal(row.buyer_name, 'Ada Lovelace');
  });
});
