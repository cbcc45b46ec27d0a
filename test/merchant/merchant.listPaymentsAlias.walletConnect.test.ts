import assert from 'node:assert/strict';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, expectError, expectJson, startHarness, usd, type Harness } from './harness.js';

interface Page {
  data: { payment_id: string; reference_id: string }[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** `GET /v1/payments` under WalletConnect Pay's parameter names (docs/decisions.md §28). */
describeEachDatabase('merchant.listPaymentsAlias: WalletConnect Pay’s parameters', (get) => {
  let base: Harness;
  let h: Harness;
  /** Oldest first, one a minute from t0. */
  const ids: string[] = [];
  const references = ['inv-2026/041', 'INV-2026/042', 'inv-2026/043', 'order 7', 'inv-2026/044'];
  const t0 = Date.UTC(2026, 1, 18, 10, 0, 0);
  const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();

  before(async () => {
    base = await startHarness({ db: get().db });
    const merchantId = (await createMerchantAccount(base.runtime, { partnerId: base.account.partnerId })).merchantId;
    h = base.withHeaders({ 'Merchant-Id': merchantId });
    for (const [minute, referenceId] of references.entries()) {
      h.clock.set(t0 + minute * 60_000);
      ids.push((await createPayment(h, { ...usd(), referenceId })).paymentId);
    }
  });
  after(() => base.close());

  const list = async (query: string) => expectJson<Page>(await h.call('GET', `/v1/payments${query}`), 200);
  const listed = async (query: string) => (await list(query)).data.map((p) => p.payment_id);

  it('startTs (inclusive) and endTs (exclusive) bound the creation time, with the native bounds too', async () => {
    assert.deepEqual(await listed(`?startTs=${at(1)}&endTs=${at(3)}`), [ids[2]!, ids[1]!]);
    assert.deepEqual(await listed(`?startTs=${at(3)}`), [ids[4]!, ids[3]!]);
    const seconds = Math.floor((t0 + 2 * 60_000) / 1000);
    assert.deepEqual(await listed(`?startTs=${at(1)}&createdGte=${seconds}`), [ids[4]!, ids[3]!, ids[2]!]);
  });

  it('cursor pages like startingAfter, and sortBy=date, sortDir=desc are the order served', async () => {
    const first = await list('?limit=2&sortBy=date&sortDir=desc');
    assert.deepEqual(
      first.data.map((p) => p.payment_id),
      [ids[4]!, ids[3]!],
    );
    const second = await list(`?limit=2&cursor=${first.nextCursor}`);
    assert.deepEqual(
      second.data.map((p) => p.payment_id),
      [ids[2]!, ids[1]!],
    );
  });

  it('referenceId finds the payments whose reference contains it, case-sensitively', async () => {
    assert.deepEqual(await listed('?referenceId=inv-2026'), [ids[4]!, ids[2]!, ids[0]!]);
    assert.deepEqual(await listed('?referenceId=2026/04'), [ids[4]!, ids[2]!, ids[1]!, ids[0]!]);
    assert.deepEqual(await listed('?referenceId=order 7'), [ids[3]!]);
    assert.deepEqual(await listed('?referenceId=nothing'), []);
  });

  it('400 params_validation for an order not served, both cursors, a bad timestamp or a bad referenceId', async () => {
    for (const query of [
      '?sortBy=amount',
      '?sortBy=size',
      '?sortDir=asc',
      `?cursor=${ids[1]}&startingAfter=${ids[1]}`,
      '?startTs=yesterday',
      '?endTs=2026-02-30T00:00:00Z',
      '?referenceId=ab',
      '?referenceId=100%25',
      `?referenceId=${'a'.repeat(36)}`,
    ]) {
      await expectError(await h.call('GET', `/v1/payments${query}`), 400, 'params_validation');
    }
    await expectError(
      await h.call('GET', '/v1/payments?cursor=pay_AAAAAAAAAAAAAAAAAAAAAAAA'),
      404,
      'payment_not_found',
    );
  });

  it('the canonical path keeps its own parameters only', async () => {
    await expectError(await h.call('GET', `/v1/merchant/payments?startTs=${at(1)}`), 400, 'invalid_params');
  });
});
