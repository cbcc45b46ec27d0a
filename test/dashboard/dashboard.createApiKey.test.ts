import assert from 'node:assert/strict';
import { expectError, expectJson, seconds, startDashboard, type Dashboard, type Merchant } from './harness.js';
import type { CreatedKey } from './keysHelpers.js';

describe('dashboard.createApiKey', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const create = (body: unknown, live = false) => m.call('POST', '/v1/dashboard/api-keys', { body, live });

  it('createApiKey answers 201 with a key bound to the merchant and its secret, which then authenticates', async () => {
    const created = await expectJson<CreatedKey>(await create({ mode: 'test', label: '  Shop backend ' }), 201);
    assert.match(created.secret, /^sk_test_[0-9A-Za-z]{32}$/);
    assert.deepEqual(created.apiKey, {
      id: created.apiKey.id,
      prefix: created.secret.slice(0, 12),
      mode: 'test',
      label: 'Shop backend',
      scope: 'merchant',
      canRefund: false,
      createdAt: seconds(d.harness.clock.now()),
      lastUsedAt: null,
      revokedAt: null,
    });
    const res = await m.call('GET', '/v1/dashboard/settings', { headers: { 'Api-Key': created.secret } });
    assert.equal(res.status, 200);
    const stored = (await d.harness.runtime.db.knex('api_keys').where({ id: created.apiKey.id }).first()) as {
      merchant_id: string;
      partner_id: string;
      hash: string;
    };
    assert.deepEqual([stored.merchant_id, stored.partner_id], [m.account.merchantId, m.account.partnerId]);
    assert.notEqual(stored.hash, created.secret, 'only the hash is stored');
  });

  it('createApiKey creates a live key in live mode; a blank label is none', async () => {
    const created = await expectJson<CreatedKey>(await create({ mode: 'live', label: '  ' }, true), 201);
    assert.match(created.secret, /^sk_live_/);
    assert.deepEqual([created.apiKey.mode, created.apiKey.label], ['live', null]);
  });

  it('createApiKey refuses a mode other than the request’s: a test credential cannot mint a live key', async () => {
    const res = await create({ mode: 'live' });
    const message = await expectError(res.clone(), 400, 'params_validation');
    assert.match(message, /request's mode \(test\)/);
    assert.equal(((await res.json()) as { param?: string }).param, 'mode');
    const keys = await d.harness.runtime.db.knex('api_keys').where({ merchant_id: m.account.merchantId, mode: 'live' });
    assert.equal(keys.length, 1, 'only the live key made in live mode above');
  });

  it('createApiKey refuses a bad body naming the field', async () => {
    for (const [body, param] of [
      [{}, 'mode'],
      [{ mode: 'test', label: 'x'.repeat(201) }, 'label'],
      [{ mode: 'test', scope: 'partner' }, 'scope'],
      [{ mode: 'test', label: 'a\u0007b' }, 'label'],
    ] as const) {
      const res = await create(body);
      await expectError(res.clone(), 400, 'params_validation');
      assert.equal(((await res.json()) as { param?: string }).param, param, JSON.stringify(body));
    }
  });
});
