import assert from 'node:assert/strict';
import { createKey, revokeKey } from '../../server/src/accounts/index.js';
import { sharedChains } from '../helpers/chain.js';
import { captureLogs } from '../helpers/logs.js';
import {
  expectError,
  expectJson,
  operations,
  startGatewayHarness,
  unknownPayment,
  type GatewayHarness,
} from './harness.js';

/** Every refusal of the gateway's headers (docs/decisions.md §2, §3, §12), on each operation of this slice. */
describe('gateway.auth', () => {
  let h: GatewayHarness;
  let paymentId: string;
  before(async () => {
    // The checkout operations need a chain to be served at all; the shared local chain serves them.
    h = await startGatewayHarness({ chains: await sharedChains() });
    paymentId = await h.createPayment();
  });
  after(() => h.close());

  const expectOnEvery = async (headers: Record<string, string | null>, status: number, code: string) => {
    for (const op of operations) {
      await expectError(await h.call(op.method, op.path(paymentId), { headers, body: op.body }), status, code);
    }
  };

  it('400 header_not_ascii for non-ASCII or control characters in Api-Key, App-Id, Client-Id or Svc-Version', async () => {
    await expectOnEvery({ 'Api-Key': 'wk_test_\u00e9' }, 400, 'header_not_ascii');
    await expectOnEvery({ 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': 'a\tb' }, 400, 'header_not_ascii');
    await expectOnEvery({ 'Api-Key': null, 'App-Id': 'app_\u00ff' }, 400, 'header_not_ascii');
    await expectOnEvery({ 'Svc-Version': '2026-02-18\u00e9' }, 400, 'header_not_ascii');
    // First in the order: it wins over a conflict.
    await expectOnEvery({ 'App-Id': 'app_\u00ff' }, 400, 'header_not_ascii');
  });

  it('400 conflicting_auth_headers for Api-Key with App-Id', async () => {
    await expectOnEvery({ 'App-Id': h.wallet.testApp, 'Client-Id': 'c1' }, 400, 'conflicting_auth_headers');
  });

  it('401 missing_auth_headers with none of Api-Key, App-Id, Client-Id (an empty one counts as missing)', async () => {
    await expectOnEvery({ 'Api-Key': null }, 401, 'missing_auth_headers');
    await expectOnEvery({ 'Api-Key': '' }, 401, 'missing_auth_headers');
  });

  it('401 missing_app_id for Client-Id alone', async () => {
    await expectOnEvery({ 'Api-Key': null, 'Client-Id': 'install-1' }, 401, 'missing_app_id');
  });

  it('401 missing_client_id for App-Id without Client-Id', async () => {
    await expectOnEvery({ 'Api-Key': null, 'App-Id': h.wallet.testApp }, 401, 'missing_client_id');
  });

  it('401 invalid_api_key for an unknown, malformed, revoked or other-kind key', async () => {
    const revoked = await createKey(h.runtime, { kind: 'wallet', mode: 'test' });
    await revokeKey(h.runtime, revoked.key.id);
    for (const key of [
      `wk_test_${'A'.repeat(32)}`,
      'wk_test_short',
      'not a key',
      revoked.secret,
      h.account.testKey,
      h.wallet.testApp,
    ]) {
      await expectOnEvery({ 'Api-Key': key }, 401, 'invalid_api_key');
    }
  });

  it('401 invalid_app_id for an unknown, malformed, revoked or other-kind app id', async () => {
    const revoked = await createKey(h.runtime, { kind: 'app', mode: 'test' });
    await revokeKey(h.runtime, revoked.key.id);
    for (const app of [`app_test_${'A'.repeat(24)}`, 'app_test_x', revoked.secret, h.wallet.testKey]) {
      await expectOnEvery({ 'Api-Key': null, 'App-Id': app, 'Client-Id': 'install-1' }, 401, 'invalid_app_id');
    }
  });

  it('403 forbidden for a credential of the other mode, after the payment lookup', async () => {
    const live = await h.createPayment({ live: true });
    for (const op of operations) {
      await expectError(await h.call(op.method, op.path(live), { body: op.body }), 403, 'forbidden');
      const app = { 'Api-Key': null, 'App-Id': h.wallet.liveApp, 'Client-Id': 'install-1' };
      await expectError(await h.call(op.method, op.path(paymentId), { headers: app, body: op.body }), 403, 'forbidden');
      // An unknown id stays 404 whatever the mode.
      await expectError(await h.call(op.method, op.path(unknownPayment), { body: op.body }), 404, 'payment_not_found');
    }
    await expectJson(
      await h.call('GET', `/v1/gateway/payment/${live}`, { headers: { 'Api-Key': h.wallet.liveKey } }),
      200,
    );
  });

  it('400 invalid_api_version when Svc-Version is not a YYYY-MM-DD calendar date', async () => {
    for (const version of ['v1', '2026-2-18', '2026-02-30', '2026-13-01', '20260218', '2026-02-18T00:00:00Z']) {
      await expectOnEvery({ 'Svc-Version': version }, 400, 'invalid_api_version');
    }
  });

  it('400 api_version_downgrade for a date older than the credential’s pin, even an unpublished one', async () => {
    await expectOnEvery({ 'Svc-Version': '2026-02-17' }, 400, 'api_version_downgrade');
    await expectOnEvery({ 'Svc-Version': '2020-01-01' }, 400, 'api_version_downgrade');
  });

  it('400 unknown_api_version for a newer date that is not published', async () => {
    await expectOnEvery({ 'Svc-Version': '2026-03-01' }, 400, 'unknown_api_version');
  });

  it('the pinned or a published Svc-Version is served; without it the pin applies', async () => {
    for (const headers of [{ 'Svc-Version': '2026-02-18' }, {}] as Record<string, string>[]) {
      await expectJson(await h.call('GET', `/v1/gateway/payment/${paymentId}`, { headers }), 200);
    }
  });

  it('App-Id with Client-Id authenticates; Api-Key with Client-Id is allowed (the Client-Id is only logged)', async () => {
    const app = { 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': '6f1c2b1e-8d3a-4f57-9a0e-2c4b7d9e1f30' };
    await expectJson(await h.call('GET', `/v1/gateway/payment/${paymentId}`, { headers: app }), 200);
    await expectJson(await h.call('GET', `/v1/gateway/payment/${paymentId}`, { headers: { 'Client-Id': 'x' } }), 200);
  });

  it('unknown headers are ignored', async () => {
    const headers = { 'X-Wallet-Flavour': 'mint', 'Merchant-Id': 'mer_whatever', 'Idempotency-Key': 'k' };
    await expectJson(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`, { headers }), 200);
  });

  describe('order of refusals (docs/decisions.md §2)', () => {
    it('an unknown route or method answers 404/405 invalid_params before any auth', async () => {
      const none = { 'Api-Key': null };
      await expectError(await h.call('GET', '/v1/gateway/nothing', { headers: none }), 404, 'invalid_params');
      await expectError(
        await h.call('DELETE', `/v1/gateway/payment/${paymentId}`, { headers: none }),
        405,
        'invalid_params',
      );
      await expectError(
        await h.call('GET', `/v1/gateway/payment/${paymentId}/`, { headers: none }),
        404,
        'invalid_params',
      );
    });

    it('content type comes before auth', async () => {
      const res = await h.call('POST', `/v1/gateway/payment/${paymentId}/cancel`, {
        raw: 'x=1',
        headers: { 'Api-Key': null, 'Content-Type': 'text/plain' },
      });
      await expectError(res, 415, 'invalid_params');
    });

    it('auth and version come before the schema', async () => {
      // An id over 128 characters breaks the schema (a malformed shorter one is just unknown: 404).
      const path = `/v1/gateway/payment/${'x'.repeat(129)}`;
      await expectError(await h.call('GET', path, { headers: { 'Api-Key': null } }), 401, 'missing_auth_headers');
      await expectError(await h.call('GET', path, { headers: { 'Svc-Version': 'v9' } }), 400, 'invalid_api_version');
      await expectError(await h.call('GET', path), 400, 'params_validation');
    });
  });

  describe('sandbox (PAYGATE_ENV=staging)', () => {
    let sandbox: GatewayHarness;
    before(async () => {
      sandbox = await startGatewayHarness({
        config: { PAYGATE_ENV: 'staging', PUBLIC_BASE_URL: 'https://sandbox.example.com', PAYGATE_CHAINS: 'local' },
      });
    });
    after(() => sandbox.close());

    it('403 not_sandbox_api_key for a live wallet key or app id, known or not', async () => {
      const id = await sandbox.createPayment();
      const credentials: Record<string, string | null>[] = [
        { 'Api-Key': sandbox.wallet.liveKey },
        { 'Api-Key': `wk_live_${'B'.repeat(32)}` },
        { 'Api-Key': null, 'App-Id': sandbox.wallet.liveApp, 'Client-Id': 'c' },
        { 'Api-Key': null, 'App-Id': `app_live_${'B'.repeat(24)}`, 'Client-Id': 'c' },
      ];
      for (const headers of credentials) {
        for (const op of operations) {
          await expectError(
            await sandbox.call(op.method, op.path(id), { headers, body: op.body }),
            403,
            'not_sandbox_api_key',
          );
        }
      }
      await expectJson(await sandbox.call('GET', `/v1/gateway/payment/${id}`), 200);
    });
  });

  describe('Sdk-* headers', () => {
    it('are accepted, never change the answer, and go into the request log line', async () => {
      const logs = captureLogs('info');
      const logged = await startGatewayHarness({ logger: logs.logger });
      try {
        const id = await logged.createPayment();
        const sdk = { 'Sdk-Name': '@paygate/sdk-wallet', 'Sdk-Version': '0.1.0', 'Sdk-Platform': 'node' };
        const plain = await expectJson(await logged.call('GET', `/v1/gateway/payment/${id}`), 200);
        const withSdk = await expectJson(await logged.call('GET', `/v1/gateway/payment/${id}`, { headers: sdk }), 200);
        assert.deepEqual(withSdk, plain);
        const lines = logs.lines().filter((l) => l.msg === 'request' && l.route === '/v1/gateway/payment/{id}');
        assert.deepEqual(lines.at(-1)!.sdk, { name: '@paygate/sdk-wallet', version: '0.1.0', platform: 'node' });
        assert.ok(typeof lines.at(-1)!.credential === 'string');
        assert.ok(!logs.text().includes(logged.wallet.testKey), 'the wallet key never reaches the log');
      } finally {
        await logged.close();
      }
    });
  });
});
