import assert from 'node:assert/strict';
import { expectError, expectJson, resolvePublic, startDashboard, type Dashboard, type Endpoint } from './harness.js';

const PATH = '/v1/dashboard/webhook-endpoint';
const HOUR = 3_600_000;

describe('dashboard.updateWebhookEndpoint', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
    resolvePublic(d, { 'private.example.com': ['172.16.0.9'] });
  });
  after(() => d.close());
  afterEach(() => {
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
  });

  const patch = (m: Awaited<ReturnType<Dashboard['merchant']>>, body: unknown, live = false) =>
    m.call('PATCH', PATH, { body, live });

  it('200: a new URL is checked and pending deliveries use it from their next attempt', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    d.receiver.respond = (_req, res) => res.writeHead(503).end();
    await m.createPayment();
    await d.drain();
    assert.equal(m.received().length, 1);
    d.receiver.respond = (_req, res) => res.writeHead(200).end();
    const moved = `${m.url}/moved`;
    const endpoint = await expectJson<Endpoint>(await patch(m, { url: moved }), 200);
    assert.equal(endpoint.url, moved);
    assert.equal(endpoint.enabled, true);
    d.harness.clock.advance(5_000);
    await d.harness.runtime.sweep();
    await d.drain();
    assert.deepEqual(
      d.receiver.received.filter((r) => r.path === `${new URL(m.url).pathname}/moved`).length,
      1,
      'the retry went to the new URL',
    );
    assert.equal((await m.deliveries())[0]!.status, 'delivered');
  });

  it('200: eventTypes replaces the list, for events created from now on', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const endpoint = await expectJson<Endpoint>(await patch(m, { eventTypes: ['payment.cancelled'] }), 200);
    assert.deepEqual(endpoint.eventTypes, ['payment.cancelled']);
    await m.createPayment();
    await d.drain();
    assert.deepEqual(await m.deliveries(), []);
  });

  it('200: disabling by hand fails the pending deliveries and creates none; enabling clears the clock', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    d.receiver.respond = (_req, res) => res.writeHead(500).end();
    await m.createPayment();
    await d.drain();
    assert.equal((await m.deliveries())[0]!.status, 'pending');
    const disabled = await expectJson<Endpoint>(await patch(m, { enabled: false }), 200);
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabledReason, 'disabled by the merchant');
    const [failed] = await m.deliveries();
    assert.equal(failed!.status, 'failed');
    assert.equal(failed!.nextAttemptAt, null);
    d.harness.clock.advance(HOUR);
    await d.harness.runtime.sweep();
    await d.drain();
    assert.equal(m.received().length, 1, 'no attempt after the disable');
    await m.createPayment();
    await d.drain();
    assert.equal((await m.deliveries()).length, 1, 'no delivery for an event while disabled');
    assert.deepEqual(await expectJson<Endpoint>(await patch(m, { enabled: false }), 200), disabled, 'a repeat');

    const enabled = await expectJson<Endpoint>(await patch(m, { enabled: true }), 200);
    assert.equal(enabled.enabled, true);
    assert.equal(enabled.disabledReason, null);
    assert.equal(enabled.failingSince, null);
  });

  it('400 params_validation: the new URL breaks the rule, and nothing changes', async () => {
    const m = await d.merchant();
    const { endpoint } = await m.createEndpoint({ url: 'https://hooks.example.com/x' }, { live: true });
    for (const url of ['http://hooks.example.com/x', 'https://private.example.com/x', 'https://127.0.0.1/x']) {
      await expectError(await patch(m, { url, enabled: false }, true), 400, 'params_validation');
    }
    assert.deepEqual(await expectJson<Endpoint>(await m.call('GET', PATH, { live: true }), 200), endpoint);
  });

  it('400 schema: empty, unknown field, empty or bad event types; unreadable bodies are invalid_params', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const cases: [unknown, string][] = [
      [{}, 'params_validation'],
      [{ secret: 'x' }, 'params_validation'],
      [{ eventTypes: [] }, 'params_validation'],
      [{ eventTypes: ['payment.unknown'] }, 'params_validation'],
      [{ eventTypes: ['payment.failed', 'payment.failed'] }, 'params_validation'],
      [{ enabled: 'yes' }, 'params_validation'],
      [[{ enabled: true }], 'invalid_params'],
    ];
    for (const [body, code] of cases) await expectError(await patch(m, body), 400, code);
    await expectError(await m.call('PATCH', PATH, { raw: '{"enabled":' }), 400, 'invalid_params');
  });

  it('404 invalid_params without an endpoint for the mode; 404 merchant_not_found', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await patch(m, { enabled: false }, true), 404, 'invalid_params');
    const res = await m.call('PATCH', PATH, { body: { enabled: false }, headers: { 'Merchant-Id': 'mer_nobody' } });
    await expectError(res, 404, 'merchant_not_found');
  });

  it('413 for a body over 256 KiB, 415 for another content type', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const raw = JSON.stringify({ url: `${m.url}/${'x'.repeat(300 * 1024)}` });
    await expectError(await m.call('PATCH', PATH, { raw }), 413, 'invalid_params');
    const text = await m.call('PATCH', PATH, { raw: 'enabled=false', headers: { 'Content-Type': 'text/plain' } });
    await expectError(text, 415, 'invalid_params');
  });
});
