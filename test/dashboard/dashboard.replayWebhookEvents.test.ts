import assert from 'node:assert/strict';
import { expectError, expectJson, seconds, startDashboard, type Dashboard, type Merchant } from './harness.js';

const PATH = '/v1/dashboard/webhook-events/replay';
const WINDOW = 1_209_600;
const DAY = 86_400_000;

describe('dashboard.replayWebhookEvents', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());
  afterEach(() => {
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
  });

  const replay = async (m: Merchant, since: number) =>
    (await expectJson<{ replayed: number }>(await m.call('POST', PATH, { body: { since } }), 202)).replayed;

  it('202: a new endpoint gets the events it never received, oldest first, with their ids and bodies', async () => {
    const m = await d.merchant();
    const since = seconds(d.harness.clock.now());
    const paymentId = await m.createPayment();
    d.harness.clock.advance(10_000);
    await expectJson(await m.call('POST', `/v1/merchant/payment/${paymentId}/cancel`, { body: {} }), 200);
    await m.createPayment({ live: true }); // another mode: never replayed here
    const { secret } = await m.createEndpoint();
    await expectJson(
      await m.call('POST', '/v1/dashboard/webhook-endpoint/test', { body: { type: 'payment.created' } }),
      202,
    );
    await d.drain();
    assert.equal(await replay(m, since), 2, 'the test event is never replayed');
    assert.equal(await replay(m, since), 0, 'pending replays are not doubled');
    await d.drain();
    const replayed = m.received().slice(1);
    const events = replayed.map((r) => d.verifier(secret).verify(r.body, r.headers) as { type: string; id: string });
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment.created', 'payment.cancelled'],
    );
    replayed.forEach((r, i) => assert.equal(r.headers['webhook-id'], events[i]!.id));
    const deliveries = await m.deliveries('status=delivered');
    assert.deepEqual(deliveries.map((x) => x.trigger).sort(), ['replay', 'replay', 'test']);
    assert.equal(await replay(m, since), 0, 'received ones are not replayed');
  });

  it('events whose every delivery failed are replayed; only the endpoint’s event types', async () => {
    const m = await d.merchant();
    await m.createEndpoint({ url: `${d.receiver.url}/elsewhere`, eventTypes: ['payment.created'] });
    const since = seconds(d.harness.clock.now());
    d.receiver.respond = (_req, res) => res.writeHead(500).end();
    const paymentId = await m.createPayment();
    await expectJson(await m.call('POST', `/v1/merchant/payment/${paymentId}/cancel`, { body: {} }), 200);
    await d.drain();
    await d.exhaust();
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    assert.deepEqual(
      (await m.deliveries()).map((x) => [x.eventType, x.status]),
      [['payment.created', 'failed']],
    );
    assert.equal(await replay(m, since), 1, 'the failed creation; the cancellation is not subscribed');
    await expectJson(
      await m.call('PATCH', '/v1/dashboard/webhook-endpoint', {
        body: { eventTypes: ['payment.created', 'payment.cancelled'] },
      }),
      200,
    );
    assert.equal(await replay(m, since), 1, 'now the cancellation too');
  });

  it('the events delivered to a deleted endpoint go to its successor', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const since = seconds(d.harness.clock.now());
    await m.createPayment();
    await d.drain();
    assert.equal(m.received().length, 1);
    assert.equal((await m.call('DELETE', '/v1/dashboard/webhook-endpoint')).status, 204);
    await m.createEndpoint();
    assert.equal(await replay(m, since), 1);
  });

  it('reaches back 14 days exactly: since = now − 1209600 is accepted, one second more is refused', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const now = seconds(d.harness.clock.now());
    assert.equal(await replay(m, now - WINDOW), 0);
    const message = await expectError(
      await m.call('POST', PATH, { body: { since: now - WINDOW - 1 } }),
      400,
      'params_validation',
    );
    assert.match(message, new RegExp(`since >= ${now - WINDOW}`));
  });

  it('an event older than the window is never replayed', async () => {
    const m = await d.merchant();
    await m.createPayment();
    d.harness.clock.advance(15 * DAY);
    await m.createEndpoint();
    assert.equal(await replay(m, seconds(d.harness.clock.now()) - WINDOW), 0);
  });

  it('400: since missing, in the future, not an integer; an unknown field; unreadable bodies', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const now = seconds(d.harness.clock.now());
    const cases: [unknown, string][] = [
      [{}, 'params_validation'],
      [{ since: now + 1 }, 'params_validation'],
      [{ since: `${now}` }, 'params_validation'],
      [{ since: now, types: ['payment.created'] }, 'params_validation'],
      ['since', 'invalid_params'],
    ];
    for (const [body, code] of cases) await expectError(await m.call('POST', PATH, { body }), 400, code);
    await expectError(await m.call('POST', PATH, { raw: '{since:1}' }), 400, 'invalid_params');
  });

  it('409 invalid_state without an endpoint, or with a disabled one', async () => {
    const m = await d.merchant();
    const now = seconds(d.harness.clock.now());
    await expectError(await m.call('POST', PATH, { body: { since: now } }), 409, 'invalid_state');
    await m.createEndpoint();
    await expectJson(await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { enabled: false } }), 200);
    await expectError(await m.call('POST', PATH, { body: { since: now } }), 409, 'invalid_state');
  });

  it('404 merchant_not_found; 413 for a body over 256 KiB, 415 for another content type', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const now = seconds(d.harness.clock.now());
    const res = await m.call('POST', PATH, { body: { since: now }, headers: { 'Merchant-Id': 'mer_nobody' } });
    await expectError(res, 404, 'merchant_not_found');
    const raw = JSON.stringify({ since: now, pad: 'x'.repeat(300 * 1024) });
    await expectError(await m.call('POST', PATH, { raw }), 413, 'invalid_params');
    const text = await m.call('POST', PATH, { raw: `since=${now}`, headers: { 'Content-Type': 'text/plain' } });
    await expectError(text, 415, 'invalid_params');
  });
});
