import assert from 'node:assert/strict';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, expectError, expectJson, simulate, startHarness, usd, type Harness } from './harness.js';

interface Page {
  data: { payment_id: string; status: string; live: boolean; settled: unknown; created_at: string }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describeEachDatabase('merchant.listPayments', (get) => {
  let base: Harness;
  /** The harness acting for a merchant of its own, so other tests' payments never show up in these pages. */
  let h: Harness;
  let merchantId: string;
  /** This merchant's test payments, oldest first. */
  const ids: string[] = [];
  const t0 = Date.UTC(2026, 1, 18, 10, 0, 0);

  before(async () => {
    base = await startHarness({ db: get().db });
    merchantId = (await createMerchantAccount(base.runtime, { partnerId: base.account.partnerId })).merchantId;
    h = base.withHeaders({ 'Merchant-Id': merchantId });
    // Seven payments, two of them created in the same millisecond (the id breaks the tie).
    for (const offset of [0, 1, 2, 3, 3, 4, 5]) {
      h.clock.set(t0 + offset * 60_000);
      ids.push((await createPayment(h)).paymentId);
    }
    await simulate(h, ids[1]!, 'processing', 'succeeded');
    await h.runtime.jobs.drain();
    await simulate(h, ids[2]!, 'processing', 'succeeded', 'settled');
    await simulate(h, ids[3]!, 'processing', 'succeeded');
    await simulate(h, ids[4]!, 'cancelled');
    await createPayment(h, usd(), { live: true });
  });
  after(() => base.close());

  const list = async (query = '', path = '/v1/merchant/payments') =>
    expectJson<Page>(await h.call('GET', `${path}${query}`), 200);

  const newestFirst = () => {
    // Same created_at: the larger id comes first.
    const tied = [ids[3]!, ids[4]!].sort().reverse();
    return [ids[6]!, ids[5]!, ...tied, ids[2]!, ids[1]!, ids[0]!];
  };

  it('lists the mode’s payments newest first', async () => {
    const page = await list();
    assert.deepEqual(
      page.data.map((p) => p.payment_id),
      newestFirst(),
    );
    assert.ok(page.data.every((p) => p.live === false));
    assert.deepEqual([page.hasMore, page.nextCursor], [false, null]);
  });

  it('pages with limit and startingAfter = nextCursor, without overlap or gap', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page = await list(`?limit=2${cursor ? `&startingAfter=${cursor}` : ''}`);
      pages++;
      seen.push(...page.data.map((p) => p.payment_id));
      assert.equal(page.nextCursor, page.hasMore ? page.data.at(-1)!.payment_id : null);
      cursor = page.nextCursor;
    } while (cursor);
    assert.equal(pages, 4);
    assert.deepEqual(seen, newestFirst());
  });

  it('pages stay stable while new payments are created', async () => {
    const first = await list('?limit=3');
    h.clock.set(t0 + 10 * 60_000);
    const newer = (await createPayment(h, usd())).paymentId;
    const second = await list(`?limit=3&startingAfter=${first.nextCursor}`);
    assert.deepEqual(
      [...first.data, ...second.data].map((p) => p.payment_id),
      newestFirst().slice(0, 6),
    );
    ids.push(newer);
    await simulate(h, newer, 'failed');
  });

  it('filters by status, creation window and settlement', async () => {
    const only = async (query: string) => (await list(query)).data.map((p) => p.payment_id).sort();
    assert.deepEqual(await only('?status=succeeded'), [ids[1]!, ids[2]!, ids[3]!].sort());
    assert.deepEqual(await only('?status=cancelled'), [ids[4]!]);
    assert.deepEqual(await only('?status=requires_action'), [ids[0]!, ids[5]!, ids[6]!].sort());
    assert.deepEqual(await only('?settled=true'), [ids[1]!, ids[2]!].sort());
    assert.deepEqual(await only('?status=succeeded&settled=false'), [ids[3]!]);
    const s = (minutes: number) => Math.floor((t0 + minutes * 60_000) / 1000);
    assert.deepEqual(await only(`?createdGte=${s(3)}&createdLt=${s(5)}`), [ids[3]!, ids[4]!, ids[5]!].sort());
    assert.deepEqual(await only(`?createdGte=${s(2)}&createdLt=${s(3)}&status=succeeded`), [ids[2]!]);
    assert.deepEqual(await only(`?createdLt=${s(0)}`), []);
  });

  it('GET /v1/payments is the same operation', async () => {
    for (const query of ['', '?limit=2', '?status=succeeded&settled=false', `?startingAfter=${ids[5]}`]) {
      assert.deepEqual(await list(query, '/v1/payments'), await list(query));
    }
  });

  it('a live key lists live payments only', async () => {
    const page = await expectJson<Page>(await h.call('GET', '/v1/merchant/payments', { live: true }), 200);
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0]!.live, true);
  });

  it('expires overdue payments before listing, so status filters see the truth', async () => {
    h.clock.set(t0 + 60 * 60_000);
    const expired = await list('?status=expired');
    assert.deepEqual(expired.data.map((p) => p.payment_id).sort(), [ids[0]!, ids[5]!, ids[6]!].sort());
    assert.deepEqual((await list('?status=requires_action')).data, []);
  });

  for (const listPath of ['/v1/merchant/payments', '/v1/payments']) {
    it(`${listPath}: 404 payment_not_found when startingAfter names no visible payment, whatever its form`, async () => {
      const path = `${listPath}?startingAfter=`;
      await expectError(await h.call('GET', `${path}pay_AAAAAAAAAAAAAAAAAAAAAAAA`), 404, 'payment_not_found');
      await expectError(await h.call('GET', `${path}order_1`), 404, 'payment_not_found');
      // Another merchant's payment, and a payment of the other mode, are not visible cursors either.
      const foreign = (await createPayment(base)).paymentId;
      await expectError(await h.call('GET', `${path}${foreign}`), 404, 'payment_not_found');
      const testPayment = (await list()).data[0]!.payment_id;
      await expectError(await h.call('GET', `${path}${testPayment}`, { live: true }), 404, 'payment_not_found');
    });

    it(`${listPath}: 400 params_validation for a bad limit, status, cursor or window; invalid_params for an unknown parameter`, async () => {
      const bad = async (query: string, code = 'params_validation') =>
        expectError(await h.call('GET', `${listPath}${query}`), 400, code);
      for (const query of [
        '?limit=0',
        '?limit=101',
        '?limit=ten',
        '?status=pending',
        `?startingAfter=${'x'.repeat(129)}`,
        '?createdGte=-1',
        '?createdLt=yesterday',
        '?settled=maybe',
      ]) {
        await bad(query);
      }
      await bad('?sort=created', 'invalid_params');
    });
  }

  it('limit defaults to 20 and may be 100', async () => {
    h.clock.set(t0 + 2 * 60 * 60_000);
    for (let i = 0; i < 21; i++) await createPayment(h, usd());
    const page = await list();
    assert.equal(page.data.length, 20);
    assert.equal(page.hasMore, true);
    const all = await list('?limit=100');
    assert.equal(all.data.length, 21 + ids.length);
    assert.equal(all.hasMore, false);
  });
});
