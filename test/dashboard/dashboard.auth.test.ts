import assert from 'node:assert/strict';
import { createKey, createMerchant, createPartner, revokeKey } from '../../server/src/accounts/index.js';
import {
  expectError,
  expectJson,
  operations,
  startDashboard,
  UNKNOWN_DELIVERY,
  type Dashboard,
  type Endpoint,
  type Merchant,
  type Operation,
} from './harness.js';

/** The dashboard's credential is the merchant's: the same codes, in the same order, on every operation. */
describe('dashboard.auth', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  const send = (op: Operation, headers: Record<string, string | null>, live = false) =>
    m.call(op.method, op.path(UNKNOWN_DELIVERY), { body: op.body, headers, live });

  describe('every operation', () => {
    for (const op of operations) {
      it(`${op.name}: 401 missing_merchant_api_key without Api-Key, checked before Merchant-Id`, async () => {
        await expectError(await send(op, { 'Api-Key': null }), 401, 'missing_merchant_api_key');
        await expectError(await send(op, { 'Api-Key': null, 'Merchant-Id': null }), 401, 'missing_merchant_api_key');
      });

      it(`${op.name}: 401 invalid_api_key for an unknown, malformed or revoked key, or one of another kind`, async () => {
        const wallet = await createKey(d.harness.runtime, { kind: 'wallet', mode: 'test' });
        const revoked = await createKey(d.harness.runtime, {
          kind: 'merchant',
          mode: 'test',
          partnerId: m.account.partnerId,
        });
        await revokeKey(d.harness.runtime, revoked.key.id);
        for (const key of [`sk_test_${'A'.repeat(32)}`, 'sk_test_short', wallet.secret, revoked.secret]) {
          await expectError(await send(op, { 'Api-Key': key }), 401, 'invalid_api_key');
        }
      });

      it(`${op.name}: 400 missing_merchant_id without Merchant-Id`, async () => {
        await expectError(await send(op, { 'Merchant-Id': null }), 400, 'missing_merchant_id');
      });

      it(`${op.name}: 400 header_not_ascii for a non-ASCII Api-Key or Merchant-Id`, async () => {
        await expectError(await send(op, { 'Api-Key': 'sk_test_\u00e9' }), 400, 'header_not_ascii');
        await expectError(await send(op, { 'Merchant-Id': 'mer_\u00e9' }), 400, 'header_not_ascii');
      });

      it(`${op.name}: 404 merchant_not_found for an unknown Merchant-Id`, async () => {
        await expectError(await send(op, { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' }), 404, 'merchant_not_found');
      });

      it(`${op.name}: 403 forbidden for a merchant of another partner`, async () => {
        const other = await createPartner(d.harness.runtime, { name: 'Other partner' });
        const merchant = await createMerchant(d.harness.runtime, { partnerId: other.id, name: 'Other merchant' });
        await expectError(await send(op, { 'Merchant-Id': merchant.id }), 403, 'forbidden');
      });
    }
  });

  it('the key’s mode selects the endpoint: a test key the test one, a live key the live one', async () => {
    const n = await d.merchant();
    d.harness.runtime.webhookOptions.resolve = async () => [{ address: '93.184.216.34', family: 4 }];
    const test = await n.createEndpoint();
    const live = await n.createEndpoint({ url: 'https://hooks.example.com/x' }, { live: true });
    const asTest = await expectJson<Endpoint>(await n.call('GET', '/v1/dashboard/webhook-endpoint'), 200);
    const asLive = await expectJson<Endpoint>(
      await n.call('GET', '/v1/dashboard/webhook-endpoint', { live: true }),
      200,
    );
    assert.equal(asTest.id, test.endpoint.id);
    assert.equal(asLive.id, live.endpoint.id);
    assert.equal(asLive.mode, 'live');
  });

  describe('order of refusals (docs/decisions.md §2)', () => {
    const none = { 'Api-Key': null, 'Merchant-Id': null };

    it('an unknown route or method answers 404/405 invalid_params before any auth', async () => {
      await expectError(await m.call('GET', '/v1/dashboard/nothing', { headers: none }), 404, 'invalid_params');
      await expectError(
        await m.call('PUT', '/v1/dashboard/webhook-endpoint', { headers: none }),
        405,
        'invalid_params',
      );
      await expectError(
        await m.call('DELETE', `/v1/dashboard/webhook-deliveries/${UNKNOWN_DELIVERY}`, { headers: none }),
        405,
        'invalid_params',
      );
    });

    it('a path spelled differently never reaches a handler', async () => {
      await expectError(
        await m.call('GET', '/V1/dashboard/webhook-endpoint', { headers: { 'Api-Key': null } }),
        404,
        'invalid_params',
      );
      await expectError(
        await m.call('GET', '/v1/dashboard/webhook-endpoint/', { headers: { 'Api-Key': null } }),
        404,
        'invalid_params',
      );
    });

    it('body size and content type come before auth', async () => {
      for (const op of operations.filter((o) => o.hasBody)) {
        const big = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
        await expectError(await m.call(op.method, op.path(''), { raw: big, headers: none }), 413, 'invalid_params');
        const text = { ...none, 'Content-Type': 'text/plain' };
        await expectError(await m.call(op.method, op.path(''), { raw: 'x=1', headers: text }), 415, 'invalid_params');
      }
    });

    it('auth comes before the schema: an invalid body or id without a key is 401', async () => {
      await expectError(
        await m.call('POST', '/v1/dashboard/webhook-endpoint', { body: { nonsense: true }, headers: none }),
        401,
        'missing_merchant_api_key',
      );
      await expectError(
        await m.call('GET', '/v1/dashboard/webhook-deliveries/whd_bad', { headers: none }),
        401,
        'missing_merchant_api_key',
      );
    });

    it('the schema comes before the lookup: a bad body for a merchant without an endpoint is 400', async () => {
      const n = await d.merchant();
      await expectError(
        await n.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { nonsense: true } }),
        400,
        'params_validation',
      );
    });
  });

  describe('sandbox (PAYGATE_ENV=staging)', () => {
    let sandbox: Dashboard;
    before(async () => {
      sandbox = await startDashboard({
        config: { PAYGATE_ENV: 'staging', PUBLIC_BASE_URL: 'https://sandbox.example.com', PAYGATE_CHAINS: 'local' },
      });
    });
    after(() => sandbox.close());

    it('a live key is 403 not_sandbox_api_key on every operation', async () => {
      const s = await sandbox.merchant();
      for (const op of operations) {
        await expectError(
          await s.call(op.method, op.path(UNKNOWN_DELIVERY), { body: op.body, live: true }),
          403,
          'not_sandbox_api_key',
        );
      }
    });
  });
});
