import assert from 'node:assert/strict';
import { expectError, expectJson, seconds, startDashboard, type Dashboard, type Merchant } from './harness.js';
import type { ApiKey, CreatedKey } from './keysHelpers.js';

describe('dashboard.rotateApiKey', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const create = async () =>
    expectJson<CreatedKey>(
      await m.call('POST', '/v1/dashboard/api-keys', { body: { mode: 'test', label: 'Shop' } }),
      201,
    );
  const rotate = (id: string, live = false) => m.call('POST', `/v1/dashboard/api-keys/${id}/rotate`, { live });

  it('rotateApiKey replaces a key: the new secret works at once, the old one stops at once', async () => {
    const old = await create();
    const asOld = { 'Api-Key': old.secret };
    assert.equal((await m.call('GET', '/v1/dashboard/settings', { headers: asOld })).status, 200);
    d.harness.clock.advance(1000);
    const rotated = await expectJson<{ apiKey: ApiKey; secret: string; revoked: ApiKey }>(
      await rotate(old.apiKey.id),
      200,
    );
    const now = seconds(d.harness.clock.now());
    assert.deepEqual(
      [rotated.apiKey.mode, rotated.apiKey.label, rotated.apiKey.scope, rotated.apiKey.createdAt],
      ['test', 'Shop', 'merchant', now],
    );
    assert.notEqual(rotated.apiKey.id, old.apiKey.id);
    assert.equal(rotated.apiKey.prefix, rotated.secret.slice(0, 12));
    assert.deepEqual([rotated.revoked.id, rotated.revoked.revokedAt], [old.apiKey.id, now]);
    // The old key was cached by the request above; rotation drops the cache in this process.
    await expectError(await m.call('GET', '/v1/dashboard/settings', { headers: asOld }), 401, 'invalid_api_key');
    assert.equal(
      (await m.call('GET', '/v1/dashboard/settings', { headers: { 'Api-Key': rotated.secret } })).status,
      200,
    );
    const bound = (await d.harness.runtime.db.knex('api_keys').where({ id: rotated.apiKey.id }).first()) as {
      merchant_id: string;
    };
    assert.equal(bound.merchant_id, m.account.merchantId, 'the new key stays bound to the merchant');
  });

  it('rotateApiKey refuses a partner-wide key (403), a revoked key (409), and another mode’s or unknown key (404)', async () => {
    const message = await expectError(await rotate(m.account.testKeyId), 403, 'forbidden');
    assert.match(message, /paygate admin/);
    const key = await create();
    await rotate(key.apiKey.id);
    await expectError(await rotate(key.apiKey.id), 409, 'invalid_state');
    const fresh = await create();
    await expectError(await rotate(fresh.apiKey.id, true), 404, 'invalid_params');
    await expectError(await rotate('key_AAAAAAAAAAAAAAAA'), 404, 'invalid_params');
    const other = await d.merchant();
    await expectError(
      await other.call('POST', `/v1/dashboard/api-keys/${fresh.apiKey.id}/rotate`),
      404,
      'invalid_params',
    );
    const bad = await rotate('key_bad');
    await expectError(bad.clone(), 400, 'params_validation');
    assert.equal(((await bad.json()) as { param?: string }).param, 'keyId');
  });
});
