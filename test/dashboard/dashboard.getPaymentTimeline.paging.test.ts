/**
 * The timeline pages through a payment's deliveries instead of stopping at a cap (docs/decisions.md §24.2): every
 * page carries the transitions and events, each event with the deliveries of that page, oldest first.
 */
import assert from 'node:assert/strict';
import { findDelivery } from '../../server/src/db/queries/webhooks.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Delivery, type Merchant } from './harness.js';

interface Page {
  entries: { kind: 'transition' | 'event'; status?: string; event?: { id: string }; deliveries?: Delivery[] }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describeEachDatabase('dashboard.getPaymentTimeline paging', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    await m.createEndpoint();
  });
  after(() => d.close());

  const page = async (id: string, query: string) =>
    expectJson<Page>(await m.call('GET', `/v1/dashboard/payments/${id}/timeline${query}`), 200);

  /** Every page from the first, following `nextCursor`. */
  async function allPages(id: string, limit: number): Promise<Page[]> {
    const pages = [await page(id, `?limit=${limit}`)];
    while (pages.at(-1)!.hasMore)
      pages.push(await page(id, `?limit=${limit}&startingAfter=${pages.at(-1)!.nextCursor}`));
    return pages;
  }
  const deliveriesOf = (p: Page) => p.entries.flatMap((e) => e.deliveries ?? []);

  it('getPaymentTimeline pages a payment with five deliveries two at a time, oldest first, each page with every entry', async () => {
    const id = await m.createPayment();
    await d.drain();
    const [created] = (await page(id, '')).entries.filter((e) => e.kind === 'event');
    for (let i = 0; i < 4; i++) {
      d.harness.clock.advance(1_000);
      await expectJson(
        await m.call('POST', `/v1/dashboard/webhook-deliveries/${created!.deliveries![0]!.id}/resend`),
        202,
      );
      await d.drain();
    }
    const whole = await page(id, '');
    assert.equal(whole.hasMore, false);
    assert.equal(whole.nextCursor, null);
    assert.equal(deliveriesOf(whole).length, 5);

    const pages = await allPages(id, 2);
    assert.deepEqual(
      pages.map((p) => [deliveriesOf(p).length, p.hasMore]),
      [
        [2, true],
        [2, true],
        [1, false],
      ],
    );
    for (const p of pages) {
      assert.deepEqual(
        p.entries.map((e) => e.kind),
        whole.entries.map((e) => e.kind),
      );
      assert.equal(p.nextCursor, p.hasMore ? deliveriesOf(p).at(-1)!.id : null);
    }
    assert.deepEqual(
      pages.flatMap(deliveriesOf).map((x) => [x.id, x.trigger, x.attempts!.length]),
      deliveriesOf(whole).map((x) => [x.id, x.trigger, 1]),
    );
  });

  it('getPaymentTimeline shows all of a payment with more deliveries than the old cap of 500, page by page', async () => {
    const id = await m.createPayment();
    await d.drain();
    const [created] = (await page(id, '')).entries.filter((e) => e.kind === 'event');
    const first = (await findDelivery(get().db.knex, created!.deliveries![0]!.id))!;
    // Replays of the same event, written like the first delivery: 600 more than one page or the old cap holds.
    const replays = Array.from({ length: 600 }, (_, i) => ({
      ...first,
      id: `whd_replay${String(i).padStart(18, '0')}`,
      trigger: 'replay',
      created_at: first.created_at + 1 + i,
      updated_at: first.created_at + 1 + i,
    }));
    await get().db.knex.batchInsert('webhook_deliveries', replays, 100);

    const pages = await allPages(id, 100);
    assert.equal(pages.length, 7);
    const ids = pages.flatMap(deliveriesOf).map((x) => x.id);
    assert.equal(ids.length, 601);
    assert.equal(new Set(ids).size, 601, 'no delivery on two pages');
    assert.deepEqual(ids, [first.id, ...replays.map((r) => r.id)], 'oldest first');
  });

  it("getPaymentTimeline answers 404 invalid_params for a cursor that is another payment's or no delivery", async () => {
    const a = await m.createPayment();
    const b = await m.createPayment();
    await d.drain();
    const ofA = deliveriesOf(await page(a, ''))[0]!.id;
    const res = await m.call('GET', `/v1/dashboard/payments/${b}/timeline?startingAfter=${ofA}`);
    await expectError(res, 404, 'invalid_params');
    const none = await m.call('GET', `/v1/dashboard/payments/${b}/timeline?startingAfter=whd_${'0'.repeat(24)}`);
    await expectError(none, 404, 'invalid_params');
  });
});
