import assert from 'node:assert/strict';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import type { CreatedKey } from './keysHelpers.js';

describe('dashboard.revokeApiKey', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const create = async (live = false) =>
    expectJson<CreatedKey>(
      await m.call('POST', '/v1/dashboard/api-keys', { body: { mode: live ? 'live' : 'test' }, live }),
      201,
    );
  const revoke = (id: string, live = false) => m.call('DELETE', `/v1/dashboard/api-keys/${id}`, { live });

  it('revokeApiKey answers 204 and the key stops authenticating at once', async () => {
    const key = await create();
    const asKey = { 'Api-Key': key.secret };
    assert.equal((await m.call('GET', '/v1/merchant/payments', { headers: asKey })).status, 200);
    const res = await revoke(key.apiKey.id);
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    await expectError(await m.call('GET', '/v1/merchant/payments', { headers: asKey }), 401, 'invalid_api_key');
  });

  it('revokeApiKey: a key may revoke itself', async () => {
    const key = await create();
    const res = await m.call('DELETE', `/v1/dashboard/api-keys/${key.apiKey.id}`, {
      headers: { 'Api-Key': key.secret },
    });
    assert.equal(res.status, 204);
    await expectError(
      await m.call('GET', '/v1/dashboard/api-keys', { headers: { 'Api-Key': key.secret } }),
      401,
      'invalid_api_key',
    );
  });

  it('revokeApiKey refuses a partner-wide key (403), a revoked key (409), another mode’s key (404)', async () => {
    await expectError(await revoke(m.account.testKeyId), 403, 'forbidden');
    assert.equal((await m.call('GET', '/v1/merchant/payments')).status, 200, 'the partner key still works');
    const key = await create();
    assert.equal((await revoke(key.apiKey.id)).status, 204);
    await expectError(await revoke(key.apiKey.id), 409, 'invalid_state');
    const live = await create(true);
    await expectError(await revoke(live.apiKey.id), 404, 'invalid_params');
    assert.equal((await revoke(live.apiKey.id, true)).status, 204);
  });
});
