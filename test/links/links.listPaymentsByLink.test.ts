/**
 * A link's payments (issue 35 §2 "Reporting", docs/decisions.md §30.8): `linkId` on the merchant `listPayments` (and
 * its aliases), the dashboard `listDashboardPayments` and `exportPayments` lists only the payments that link's visits created, newest
 * first, paged with the same cursor as every list, on both databases.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, usd, type Harness } from '../merchant/harness.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from '../dashboard/harness.js';

interface Page {
  data: { payment_id: string; link_id?: string | null }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describeEachDatabase('links.listPaymentsByLink', (get) => {
  let d: Dashboard;
  let m: Merchant;
  let h: Harness;
  let linkA: string;
  let linkB: string;
  /** Link A's payments, oldest first. */
  const ofA: string[] = [];
  const t0 = Date.UTC(2026, 1, 18, 10, 0, 0);

  const visit = async (linkId: string) => {
    const res = await fetch(`${d.harness.server.url}/l/${linkId}`, { redirect: 'manual' });
    assert.equal(res.status, 303, await res.clone().text());
    const id = /\/pay\/(pay_[0-9A-Za-z]{24})$/.exec(res.headers.get('location') ?? '')?.[1];
    assert.ok(id);
    return id;
  };

  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    h = d.harness.withHeaders({ 'Api-Key': m.account.testKey, 'Merchant-Id': m.account.merchantId });
    const link = async () =>
      (
        await expectJson<{ id: string }>(
          await h.call('POST', '/v1/merchant/payment-links', {
            body: { currency: 'iso4217/USD', amount: '1500', description: 'Concert ticket' },
          }),
          201,
        )
      ).id;
    linkA = await link();
    linkB = await link();
    // Link A's payments interleaved with link B's and with API payments; two of A's in the same millisecond.
    for (const [i, step] of (['A', 'api', 'B', 'A', 'A', 'api', 'A', 'B'] as const).entries()) {
      d.harness.clock.set(t0 + (i === 4 ? 3 : i) * 60_000);
      if (step === 'A') ofA.push(await visit(linkA));
      else if (step === 'B') await visit(linkB);
      else await createPayment(h, usd());
    }
  });
  after(() => d.close());

  const newestFirst = () => {
    const tied = [ofA[1]!, ofA[2]!].sort().reverse();
    return [ofA[3]!, ...tied, ofA[0]!];
  };

  const pages = async (path: string, call: (url: string) => Promise<Response>) => {
    const seen: Page['data'] = [];
    let cursor: string | null = null;
    let count = 0;
    do {
      const page: Page = await expectJson<Page>(
        await call(`${path}?linkId=${linkA}&limit=2${cursor ? `&startingAfter=${cursor}` : ''}`),
        200,
      );
      count++;
      seen.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return { seen, count };
  };

  for (const path of ['/v1/merchant/payments', '/v1/payments', '/v1/merchants/payments']) {
    it(`${path}?linkId= lists only that link's payments, newest first, paged`, async () => {
      const { seen, count } = await pages(path, (url) => h.call('GET', url));
      assert.equal(count, 2);
      assert.deepEqual(
        seen.map((p) => p.payment_id),
        newestFirst(),
      );
      assert.ok(seen.every((p) => p.link_id === linkA));
    });
  }

  it('listDashboardPayments?linkId= lists only that link’s payments, newest first, paged', async () => {
    const { seen, count } = await pages('/v1/dashboard/payments', (url) => m.call('GET', url));
    assert.equal(count, 2);
    assert.deepEqual(
      seen.map((p) => p.payment_id),
      newestFirst(),
    );
  });

  it('exportPayments?linkId= exports the same payments as the list', async () => {
    const res = await m.call('GET', `/v1/dashboard/payments/export?linkId=${linkA}`);
    assert.equal(res.status, 200);
    const ids = (await res.text())
      .split('\r\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => /^"(pay_[0-9A-Za-z]{24})"/.exec(line)?.[1]);
    assert.deepEqual(ids, newestFirst());
  });

  it('a linkId of no link of the merchant’s mode lists nothing; an over-long one is params_validation', async () => {
    const empty = await expectJson<Page>(await h.call('GET', `/v1/merchant/payments?linkId=plink_nothing`), 200);
    assert.deepEqual([empty.data, empty.hasMore], [[], false]);
    const live = await expectJson<Page>(
      await m.call('GET', `/v1/dashboard/payments?linkId=${linkA}`, { live: true }),
      200,
    );
    assert.deepEqual(live.data, []);
    await expectError(
      await m.call('GET', `/v1/dashboard/payments?linkId=${'x'.repeat(129)}`),
      400,
      'params_validation',
    );
  });

  it('linkId combines with the other filters (AND)', async () => {
    const page = await expectJson<Page>(
      await m.call('GET', `/v1/dashboard/payments?linkId=${linkB}&status=requires_action`),
      200,
    );
    assert.equal(page.data.length, 2);
    const none = await expectJson<Page>(
      await m.call('GET', `/v1/dashboard/payments?linkId=${linkB}&status=succeeded`),
      200,
    );
    assert.deepEqual(none.data, []);
  });
});
