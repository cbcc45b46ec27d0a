import assert from 'node:assert/strict';
import { findEndpoint } from '../../server/src/db/queries/webhooks.js';
import { expectError, startDashboard, type Dashboard } from './harness.js';

const PATH = '/v1/dashboard/webhook-endpoint';

describe('dashboard.deleteWebhookEndpoint', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());
  afterEach(() => {
    d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
  });

  it('204: immediate; pending deliveries fail, the secrets are destroyed, past deliveries stay listed', async () => {
    const m = await d.merchant();
    const { endpoint } = await m.createEndpoint();
    await m.call('POST', `${PATH}/rotate-secret`);
    d.receiver.respond = (_req, res) => res.writeHead(500).end();
    await m.createPayment();
    await d.drain();
    const res = await m.call('DELETE', PATH);
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    await expectError(await m.call('GET', PATH), 404, 'invalid_params');

    d.harness.clock.advance(60 * 60_000);
    await d.harness.runtime.sweep();
    await d.drain();
    assert.equal(m.received().length, 1, 'no attempt after the delete');
    const [delivery] = await m.deliveries();
    assert.equal(delivery!.status, 'failed');
    assert.equal(delivery!.endpointId, endpoint.id, 'listed under the deleted endpoint');
    const row = await findEndpoint(d.harness.runtime.db.knex, endpoint.id);
    assert.equal(row!.secret_sealed, '');
    assert.equal(row!.previous_secret_sealed, null);
  });

  it('a new endpoint can be created at once, with a new id and secret', async () => {
    const m = await d.merchant();
    const first = await m.createEndpoint();
    assert.equal((await m.call('DELETE', PATH)).status, 204);
    const second = await m.createEndpoint();
    assert.notEqual(second.endpoint.id, first.endpoint.id);
    assert.notEqual(second.secret, first.secret);
  });

  it('deletes only the key’s mode', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await m.call('DELETE', PATH, { live: true }), 404, 'invalid_params');
    assert.equal((await m.call('GET', PATH)).status, 200);
  });

  it('404 invalid_params without an endpoint; 404 merchant_not_found', async () => {
    const m = await d.merchant();
    await expectError(await m.call('DELETE', PATH), 404, 'invalid_params');
    await m.createEndpoint();
    assert.equal((await m.call('DELETE', PATH)).status, 204);
    await expectError(await m.call('DELETE', PATH), 404, 'invalid_params');
    await expectError(
      await m.call('DELETE', PATH, { headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } }),
      404,
      'merchant_not_found',
    );
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await m.call('DELETE', `${PATH}?force=true`), 400, 'invalid_params');
    assert.equal((await m.call('GET', PATH)).status, 200, 'nothing was deleted');
  });
});
