import assert from 'node:assert/strict';
import {
  expectError,
  expectJson,
  resolvePublic,
  seconds,
  startDashboard,
  type Dashboard,
  type Endpoint,
} from './harness.js';

const PATH = '/v1/dashboard/webhook-endpoint';
const DAY = 86_400_000;

describe('dashboard.getWebhookEndpoint', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
    resolvePublic(d);
  });
  after(() => d.close());

  it('200: the endpoint of the key’s mode, without its secret', async () => {
    const m = await d.merchant();
    const { endpoint: test, secret } = await m.createEndpoint();
    const { endpoint: live } = await m.createEndpoint({ url: 'https://hooks.example.com/x' }, { live: true });
    const res = await m.call('GET', PATH);
    const body = await expectJson<Endpoint>(res, 200);
    assert.deepEqual(body, test);
    assert.ok(!JSON.stringify(body).includes(secret.slice(6)));
    assert.deepEqual(await expectJson<Endpoint>(await m.call('GET', PATH, { live: true }), 200), live);
  });

  it('shows the failure clock and the automatic disable (Unix seconds)', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    d.receiver.respond = (_req, res) => res.writeHead(500).end();
    try {
      const start = seconds(d.harness.clock.now());
      await m.createPayment();
      await d.drain();
      let endpoint = await expectJson<Endpoint>(await m.call('GET', PATH), 200);
      assert.equal(endpoint.failingSince, start);
      assert.equal(endpoint.enabled, true);
      // Fresh payments keep every attempt failing until the endpoint has failed for 5 days.
      for (let day = 1; day <= 5; day++) {
        d.harness.clock.advance(DAY);
        await m.createPayment();
        await d.drain();
      }
      endpoint = await expectJson<Endpoint>(await m.call('GET', PATH), 200);
      assert.equal(endpoint.enabled, false);
      assert.equal(endpoint.disabledReason, '5 days of failed deliveries');
      assert.equal(endpoint.failingSince, start);
      assert.ok(
        (await m.deliveries()).every((x) => x.status === 'failed'),
        'its pending deliveries became failed',
      );
    } finally {
      d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    }
  });

  it('404 invalid_params when no endpoint is registered for the mode (never created, or deleted)', async () => {
    const m = await d.merchant();
    assert.match(await expectError(await m.call('GET', PATH), 404, 'invalid_params'), /test mode/);
    await m.createEndpoint();
    await expectError(await m.call('GET', PATH, { live: true }), 404, 'invalid_params');
    assert.equal((await m.call('DELETE', PATH)).status, 204);
    await expectError(await m.call('GET', PATH), 404, 'invalid_params');
  });

  it('404 merchant_not_found for an unknown Merchant-Id', async () => {
    const m = await d.merchant();
    await expectError(
      await m.call('GET', PATH, { headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } }),
      404,
      'merchant_not_found',
    );
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await m.call('GET', `${PATH}?verbose=1`), 400, 'invalid_params');
  });
});
