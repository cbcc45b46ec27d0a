import assert from 'node:assert/strict';
import {
  expectError,
  expectJson,
  seconds,
  startDashboard,
  type Dashboard,
  type Delivery,
  type DeliveryList,
  type Merchant,
} from './harness.js';

const PATH = '/v1/dashboard/webhook-deliveries';

describe('dashboard.listWebhookDeliveries', () => {
  let d: Dashboard;
  let m: Merchant;
  let endpointId: string;
  /** Newest first: the test event, the pending payment.created of p2, p1's cancellation, p1's creation. */
  let all: Delivery[];
  let p1: string;
  let p2: string;
  let t1: number;

  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
    endpointId = (await m.createEndpoint()).endpoint.id;
    t1 = seconds(d.harness.clock.now());
    p1 = await m.createPayment();
    await d.drain();
    d.harness.clock.advance(10_000);
    await expectJson(await m.call('POST', `/v1/merchant/payment/${p1}/cancel`, { body: {} }), 200);
    await d.drain();
    d.harness.clock.advance(10_000);
    d.receiver.respond = (_req, res) => res.writeHead(500).end();
    p2 = await m.createPayment();
    await d.drain();
    d.harness.clock.advance(10_000);
    await expectJson(
      await m.call('POST', '/v1/dashboard/webhook-endpoint/test', { body: { type: 'payment.succeeded' } }),
      202,
    );
    await d.drain();
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    all = await m.deliveries();
  });
  after(() => d.close());

  const list = async (query: string, live = false) =>
    expectJson<DeliveryList>(await m.call('GET', `${PATH}?${query}`, { live }), 200);
  const ids = (xs: Delivery[]) => xs.map((x) => x.id);

  it('200: every delivery of the mode, newest first, without attempts', () => {
    assert.deepEqual(
      all.map((x) => [x.eventType, x.trigger, x.status]),
      [
        ['payment.succeeded', 'test', 'pending'],
        ['payment.created', 'event', 'pending'],
        ['payment.cancelled', 'event', 'delivered'],
        ['payment.created', 'event', 'delivered'],
      ],
    );
    assert.deepEqual(
      all.map((x) => x.createdAt),
      [t1 + 30, t1 + 20, t1 + 10, t1],
    );
    assert.ok(all.every((x) => !('attempts' in x) && x.endpointId === endpointId));
    assert.equal(all[2]!.deliveredAt, t1 + 10);
    // Its second attempt ran with the test event's (due at +25 s, run at +30 s); the third is due 5 min later.
    assert.equal(all[1]!.attemptCount, 2);
    assert.equal(all[1]!.nextAttemptAt, t1 + 30 + 300);
    assert.equal(all[3]!.nextAttemptAt, null);
  });

  it('pages with limit and nextCursor, repeating the filters', async () => {
    const first = await list('limit=3');
    assert.deepEqual(ids(first.data), ids(all.slice(0, 3)));
    assert.equal(first.hasMore, true);
    assert.equal(first.nextCursor, all[2]!.id);
    const second = await list(`limit=3&startingAfter=${first.nextCursor}`);
    assert.deepEqual(ids(second.data), [all[3]!.id]);
    assert.equal(second.hasMore, false);
    assert.equal(second.nextCursor, null);
    const exact = await list('limit=4');
    assert.equal(exact.hasMore, false, 'a page that ends at the last item has no more');
    const filtered = await list(`status=delivered&limit=1`);
    const rest = await list(`status=delivered&limit=1&startingAfter=${filtered.nextCursor}`);
    assert.deepEqual([...ids(filtered.data), ...ids(rest.data)], [all[2]!.id, all[3]!.id]);
  });

  it('filters combine with AND: status, eventType, eventId, paymentId, creation window', async () => {
    assert.deepEqual(ids((await list('status=pending')).data), ids(all.slice(0, 2)));
    assert.deepEqual(ids((await list('status=failed')).data), []);
    assert.deepEqual(ids((await list('eventType=payment.cancelled')).data), [all[2]!.id]);
    assert.deepEqual(ids((await list(`eventId=${all[3]!.eventId}`)).data), [all[3]!.id]);
    assert.deepEqual(ids((await list(`paymentId=${p1}`)).data), [all[2]!.id, all[3]!.id]);
    assert.deepEqual(ids((await list(`paymentId=${p2}&status=pending`)).data), [all[1]!.id]);
    assert.deepEqual(ids((await list('paymentId=pay_AAAAAAAAAAAAAAAAAAAAAAAA')).data), []);
    // An id of any other form names no payment either (docs/decisions.md §4).
    assert.deepEqual(ids((await list('paymentId=order_1')).data), []);
    assert.deepEqual(ids((await list(`createdGte=${t1 + 10}&createdLt=${t1 + 30}`)).data), ids(all.slice(1, 3)));
    assert.deepEqual(ids((await list(`createdLt=${t1}`)).data), []);
    assert.deepEqual(ids((await list('limit=20')).data), ids(all));
  });

  it('a key sees its mode only; another merchant sees nothing', async () => {
    assert.deepEqual((await list('', true)).data, []);
    const other = await d.merchant();
    assert.deepEqual(await other.deliveries(), []);
  });

  it('deliveries outlive their endpoint: still listed, with the deleted endpoint’s id', async () => {
    const n = await d.merchant();
    const { endpoint } = await n.createEndpoint();
    await n.createPayment();
    await d.drain();
    assert.equal((await n.call('DELETE', '/v1/dashboard/webhook-endpoint')).status, 204);
    await n.createEndpoint();
    const [kept] = await n.deliveries();
    assert.equal(kept!.endpointId, endpoint.id);
  });

  it('400 params_validation for a parameter that breaks its schema', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=two',
      'status=abandoned',
      'eventType=payment.refunded',
      'startingAfter=whd_short',
      'eventId=evt_x',
      `paymentId=${'x'.repeat(129)}`,
      'createdGte=-1',
    ]) {
      await expectError(await m.call('GET', `${PATH}?${query}`), 400, 'params_validation');
    }
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    await expectError(await m.call('GET', `${PATH}?endpointId=${endpointId}`), 400, 'invalid_params');
  });

  it('404 invalid_params when startingAfter names no visible delivery; 404 merchant_not_found', async () => {
    const unknown = await m.call('GET', `${PATH}?startingAfter=whd_AAAAAAAAAAAAAAAAAAAAAAAA`);
    assert.match(await expectError(unknown, 404, 'invalid_params'), /startingAfter/);
    const otherMode = await m.call('GET', `${PATH}?startingAfter=${all[0]!.id}`, { live: true });
    await expectError(otherMode, 404, 'invalid_params');
    const res = await m.call('GET', PATH, { headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } });
    await expectError(res, 404, 'merchant_not_found');
  });
});
