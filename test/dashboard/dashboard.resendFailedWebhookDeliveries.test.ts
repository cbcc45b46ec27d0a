import assert from 'node:assert/strict';
import { expectError, expectJson, seconds, startDashboard, type Dashboard, type Merchant } from './harness.js';

const PATH = '/v1/dashboard/webhook-deliveries/resend-failed';

describe('dashboard.resendFailedWebhookDeliveries', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());
  afterEach(() => {
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
  });

  const resendFailed = async (m: Merchant, since: number) =>
    (await expectJson<{ resent: number }>(await m.call('POST', PATH, { body: { since } }), 202)).resent;

  /** A merchant whose endpoint failed two payments' deliveries (8 attempts each), created at `since`. */
  async function outage(): Promise<{ m: Merchant; since: number }> {
    const m = await d.merchant();
    await m.createEndpoint();
    const since = seconds(d.harness.clock.now());
    d.receiver.respond = (_req, res) => res.writeHead(503).end();
    await m.createPayment();
    await m.createPayment();
    await d.drain();
    await d.exhaust();
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    assert.deepEqual(
      (await m.deliveries()).map((x) => x.status),
      ['failed', 'failed'],
    );
    return { m, since };
  }

  it('202: resends each failed delivery since T once; not again while pending or once delivered', async () => {
    const { m, since } = await outage();
    const failed = await m.deliveries();
    // One is resent by hand and gets through: the bulk resend leaves its event alone.
    await expectJson(await m.call('POST', `/v1/dashboard/webhook-deliveries/${failed[0]!.id}/resend`), 202);
    await d.drain();
    const seen = m.received().length;
    assert.equal(await resendFailed(m, since), 1);
    assert.equal(await resendFailed(m, since), 0, 'the resend is pending: no double traffic');
    await d.drain();
    assert.equal(m.received().length, seen + 1);
    assert.equal(m.received().at(-1)!.headers['webhook-id'], failed[1]!.eventId);
    const resends = await m.deliveries(`eventId=${failed[1]!.eventId}`);
    assert.deepEqual(
      resends.map((x) => [x.trigger, x.status]),
      [
        ['resend', 'delivered'],
        ['event', 'failed'],
      ],
    );
    assert.equal(await resendFailed(m, since), 0, 'delivered since');
  });

  it('only deliveries created at or after since', async () => {
    const { m, since } = await outage();
    assert.equal(await resendFailed(m, since + 1), 0);
    assert.equal(await resendFailed(m, seconds(d.harness.clock.now())), 0, 'since = now is allowed');
    assert.equal(await resendFailed(m, since), 2);
  });

  it('deliveries of a deleted endpoint are not resent to the new one', async () => {
    const { m, since } = await outage();
    assert.equal((await m.call('DELETE', '/v1/dashboard/webhook-endpoint')).status, 204);
    await m.createEndpoint();
    assert.equal(await resendFailed(m, since), 0);
  });

  it('after a disable by hand and a re-enable, the deliveries it failed are resent', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const since = seconds(d.harness.clock.now());
    d.receiver.respond = (_req, res) => res.writeHead(503).end();
    await m.createPayment();
    await d.drain();
    await expectJson(await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { enabled: false } }), 200);
    await expectJson(await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { enabled: true } }), 200);
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    assert.equal(await resendFailed(m, since), 1);
  });

  it('400: since missing, not an integer, negative, in the future; an unknown field; unreadable bodies', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const future = seconds(d.harness.clock.now()) + 1;
    const cases: [unknown, string][] = [
      [{}, 'params_validation'],
      [{ since: '1771408800' }, 'params_validation'],
      [{ since: 1.5 }, 'params_validation'],
      [{ since: -1 }, 'params_validation'],
      [{ since: future }, 'params_validation'],
      [{ since: 0, status: 'failed' }, 'params_validation'],
      [[0], 'invalid_params'],
    ];
    for (const [body, code] of cases) await expectError(await m.call('POST', PATH, { body }), 400, code);
    assert.match(
      await expectError(await m.call('POST', PATH, { body: { since: future } }), 400, 'params_validation'),
      /future/,
    );
    await expectError(await m.call('POST', PATH, { raw: '{"since":' }), 400, 'invalid_params');
  });

  it('409 invalid_state without an endpoint, or with a disabled one', async () => {
    const m = await d.merchant();
    assert.match(
      await expectError(await m.call('POST', PATH, { body: { since: 0 } }), 409, 'invalid_state'),
      /No webhook endpoint/,
    );
    await m.createEndpoint();
    await expectJson(await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { enabled: false } }), 200);
    assert.match(
      await expectError(await m.call('POST', PATH, { body: { since: 0 } }), 409, 'invalid_state'),
      /disabled/,
    );
  });

  it('404 merchant_not_found; 413 for a body over 256 KiB, 415 for another content type', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const res = await m.call('POST', PATH, { body: { since: 0 }, headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } });
    await expectError(res, 404, 'merchant_not_found');
    const raw = JSON.stringify({ since: 0, pad: 'x'.repeat(300 * 1024) });
    await expectError(await m.call('POST', PATH, { raw }), 413, 'invalid_params');
    const text = await m.call('POST', PATH, { raw: 'since=0', headers: { 'Content-Type': 'text/plain' } });
    await expectError(text, 415, 'invalid_params');
  });
});
