import assert from 'node:assert/strict';
import { createKey, createMerchant } from '../../server/src/accounts/index.js';
import { expectJson, seconds, startDashboard, type Dashboard, type Merchant } from './harness.js';
import type { ApiKey, CreatedKey } from './keysHelpers.js';

describe('dashboard.listApiKeys', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const list = async (live = false) =>
    (await expectJson<{ data: ApiKey[] }>(await m.call('GET', '/v1/dashboard/api-keys', { live }), 200)).data;

  it('listApiKeys lists the merchant’s keys and its partner’s partner-wide keys of the mode, newest first', async () => {
    d.harness.clock.advance(1000);
    const bound = await expectJson<CreatedKey>(
      await m.call('POST', '/v1/dashboard/api-keys', { body: { mode: 'test', label: 'Shop' } }),
      201,
    );
    // Keys bound to a sibling merchant of the same partner are not this merchant's.
    const sibling = await createMerchant(d.harness.runtime, { partnerId: m.account.partnerId, name: 'Sibling' });
    d.harness.clock.advance(1000);
    await expectJson(
      await m.call('POST', '/v1/dashboard/api-keys', {
        body: { mode: 'test' },
        headers: { 'Merchant-Id': sibling.id },
      }),
      201,
    );
    const keys = await list();
    assert.deepEqual(
      keys.map((k) => [k.id, k.scope, k.mode]),
      [
        [bound.apiKey.id, 'merchant', 'test'],
        [m.account.testKeyId, 'partner', 'test'],
      ],
    );
    assert.deepEqual(keys[0], { ...bound.apiKey, lastUsedAt: null });
    assert.ok(
      keys.every((k) => !JSON.stringify(k).includes(bound.secret)),
      'never the secret',
    );
    assert.deepEqual(
      (await list(true)).map((k) => [k.id, k.scope, k.mode]),
      [[m.account.liveKeyId, 'partner', 'live']],
    );
  });

  it('listApiKeys shows revoked keys with revokedAt, and no wallet or app key', async () => {
    const n = await d.merchant();
    await createKey(d.harness.runtime, { kind: 'wallet', mode: 'test', partnerId: n.account.partnerId });
    d.harness.clock.advance(1000);
    const created = await expectJson<CreatedKey>(
      await n.call('POST', '/v1/dashboard/api-keys', { body: { mode: 'test' } }),
      201,
    );
    d.harness.clock.advance(2000);
    assert.equal((await n.call('DELETE', `/v1/dashboard/api-keys/${created.apiKey.id}`)).status, 204);
    const keys = (await expectJson<{ data: ApiKey[] }>(await n.call('GET', '/v1/dashboard/api-keys'), 200)).data;
    assert.deepEqual(
      keys.map((k) => [k.id, k.revokedAt]),
      [
        [created.apiKey.id, seconds(d.harness.clock.now())],
        [n.account.testKeyId, null],
      ],
    );
  });

  it('lastUsedAt is recorded when a key authenticates, at most once a minute (injected clock)', async () => {
    const n = await d.merchant();
    const created = await expectJson<CreatedKey>(
      await n.call('POST', '/v1/dashboard/api-keys', { body: { mode: 'test' } }),
      201,
    );
    const lastUsed = async () => {
      const keys = (await expectJson<{ data: ApiKey[] }>(await n.call('GET', '/v1/dashboard/api-keys'), 200)).data;
      return keys.find((k) => k.id === created.apiKey.id)!.lastUsedAt;
    };
    const use = () => n.call('GET', '/v1/merchant/payments', { headers: { 'Api-Key': created.secret } });
    assert.equal(await lastUsed(), null, 'never used');

    const t1 = d.harness.clock.now();
    assert.equal((await use()).status, 200);
    assert.equal(await lastUsed(), seconds(t1), 'used → recorded');

    d.harness.clock.advance(59_000);
    assert.equal((await use()).status, 200);
    assert.equal(await lastUsed(), seconds(t1), 'used again within a minute → unchanged');

    d.harness.clock.advance(1_000);
    assert.equal((await use()).status, 200);
    assert.equal(await lastUsed(), seconds(t1 + 60_000), 'a minute later → updated');

    // The key that lists is recorded too: the partner-wide test key has been used by every list above.
    const partner = (
      await expectJson<{ data: ApiKey[] }>(await n.call('GET', '/v1/dashboard/api-keys'), 200)
    ).data.find((k) => k.id === n.account.testKeyId);
    assert.ok(partner!.lastUsedAt !== null);
  });
});
