import assert from 'node:assert/strict';
import { createKey, createMerchant, createPartner, revokeKey } from '../../server/src/accounts/index.js';
import { createPayment, expectError, expectJson, operations, startHarness, type Harness } from './harness.js';

const unknownPayment = 'pay_AAAAAAAAAAAAAAAAAAAAAAAA';

describe('merchant.auth', () => {
  let h: Harness;
  let paymentId: string;
  before(async () => {
    h = await startHarness();
    paymentId = (await createPayment(h)).paymentId;
  });
  after(() => h.close());

  const send = (op: (typeof operations)[number], headers: Record<string, string | null>) =>
    h.call(op.method, op.path(paymentId), { body: op.body, headers });

  describe('every operation', () => {
    for (const op of operations) {
      it(`${op.name}: 401 missing_merchant_api_key without Api-Key, checked before Merchant-Id`, async () => {
        await expectError(await send(op, { 'Api-Key': null }), 401, 'missing_merchant_api_key');
        await expectError(await send(op, { 'Api-Key': null, 'Merchant-Id': null }), 401, 'missing_merchant_api_key');
      });

      it(`${op.name}: 401 invalid_api_key for an unknown key`, async () => {
        await expectError(await send(op, { 'Api-Key': `sk_test_${'A'.repeat(32)}` }), 401, 'invalid_api_key');
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
        const other = await createPartner(h.runtime, { name: 'Other partner' });
        const merchant = await createMerchant(h.runtime, { partnerId: other.id, name: 'Other merchant' });
        await expectError(await send(op, { 'Merchant-Id': merchant.id }), 403, 'forbidden');
      });
    }
  });

  it('a control character in a header is header_not_ascii', async () => {
    const res = await h.call('GET', '/v1/merchant/payments', { headers: { 'Merchant-Id': 'mer_a\tb' } });
    await expectError(res, 400, 'header_not_ascii');
  });

  it('checks the characters of the headers the operation declares, and only those', async () => {
    const res = await h.call('POST', '/v1/merchant/payment', {
      body: { referenceId: 'r' },
      headers: { 'Idempotency-Key': 'caf\u00e9' },
    });
    assert.match(await expectError(res, 400, 'header_not_ascii'), /Idempotency-Key/);
    const list = await h.call('GET', '/v1/merchant/payments', { headers: { 'Idempotency-Key': 'caf\u00e9' } });
    await expectJson(list, 200);
  });

  it('an empty Api-Key counts as missing', async () => {
    await expectError(
      await h.call('GET', '/v1/merchant/payments', { headers: { 'Api-Key': '' } }),
      401,
      'missing_merchant_api_key',
    );
  });

  it('a malformed key, a key of another kind and a revoked key are invalid_api_key', async () => {
    const wallet = await createKey(h.runtime, { kind: 'wallet', mode: 'test' });
    const revoked = await createKey(h.runtime, { kind: 'merchant', mode: 'test', partnerId: h.account.partnerId });
    await revokeKey(h.runtime, revoked.key.id);
    for (const key of ['sk_test_short', 'not a key', h.account.testKey.slice(0, -1), wallet.secret, revoked.secret]) {
      await expectError(
        await h.call('GET', '/v1/merchant/payments', { headers: { 'Api-Key': key } }),
        401,
        'invalid_api_key',
      );
    }
  });

  it('a malformed Merchant-Id is merchant_not_found', async () => {
    await expectError(
      await h.call('GET', '/v1/merchant/payments', { headers: { 'Merchant-Id': 'x' } }),
      404,
      'merchant_not_found',
    );
  });

  it('another merchant of the same partner is allowed, and sees none of this merchant’s payments', async () => {
    const sibling = await createMerchant(h.runtime, { partnerId: h.account.partnerId, name: 'Sibling' });
    const headers = { 'Merchant-Id': sibling.id };
    const list = await expectJson<{ data: unknown[] }>(await h.call('GET', '/v1/merchant/payments', { headers }), 200);
    assert.deepEqual(list.data, []);
    await expectError(await h.call('GET', `/v1/merchant/payment/${paymentId}`, { headers }), 404, 'payment_not_found');
  });

  describe('order of refusals (docs/decisions.md §2)', () => {
    it('an unknown route or method answers 404/405 invalid_params before any auth', async () => {
      const none = { 'Api-Key': null, 'Merchant-Id': null };
      await expectError(await h.call('GET', '/v1/merchant/nothing', { headers: none }), 404, 'invalid_params');
      await expectError(await h.call('GET', '/v1/payments/x/y/z', { headers: none }), 404, 'invalid_params');
      await expectError(
        await h.call('DELETE', `/v1/merchant/payment/${paymentId}`, { headers: none }),
        405,
        'invalid_params',
      );
      await expectError(await h.call('PUT', '/v1/merchant/payment', { headers: none }), 405, 'invalid_params');
    });

    it('a path spelled differently never reaches a handler', async () => {
      const none = { 'Api-Key': null };
      await expectError(
        await h.call('GET', `/V1/merchant/payment/${paymentId}`, { headers: none }),
        404,
        'invalid_params',
      );
      await expectError(
        await h.call('GET', `/v1/merchant/payment/${paymentId}/`, { headers: none }),
        404,
        'invalid_params',
      );
    });

    it('body size and content type come before auth', async () => {
      const none = { 'Api-Key': null };
      const big = JSON.stringify({ referenceId: 'x'.repeat(300 * 1024) });
      await expectError(
        await h.call('POST', '/v1/merchant/payment', { raw: big, headers: none }),
        413,
        'invalid_params',
      );
      const text = { ...none, 'Content-Type': 'text/plain' };
      await expectError(
        await h.call('POST', '/v1/merchant/payment', { raw: 'amount=1', headers: text }),
        415,
        'invalid_params',
      );
    });

    it('auth comes before the schema: an invalid body without a key is 401', async () => {
      const res = await h.call('POST', '/v1/merchant/payment', {
        body: { nonsense: true },
        headers: { 'Api-Key': null },
      });
      await expectError(res, 401, 'missing_merchant_api_key');
    });
  });

  describe('modes', () => {
    it('a test key creates test payments and a live key live ones', async () => {
      const live = await createPayment(h, undefined, { live: true });
      const snapshot = await expectJson<{ live: boolean }>(
        await h.call('GET', `/v1/merchant/payment/${live.paymentId}`, { live: true }),
        200,
      );
      assert.equal(snapshot.live, true);
      const test = await expectJson<{ live: boolean }>(await h.call('GET', `/v1/merchant/payment/${paymentId}`), 200);
      assert.equal(test.live, false);
    });

    it('a payment of the other mode is invisible: 404 payment_not_found on every payment operation', async () => {
      const live = (await createPayment(h, undefined, { live: true })).paymentId;
      for (const op of operations.filter((o) => o.byId)) {
        const fromTest = await h.call(op.method, op.path(live), { body: op.body });
        await expectError(fromTest, 404, 'payment_not_found');
        if (op.name === 'simulatePayment') continue; // a live key is refused before the lookup (forbidden)
        const fromLive = await h.call(op.method, op.path(paymentId), { body: op.body, live: true });
        await expectError(fromLive, 404, 'payment_not_found');
      }
      const testList = await expectJson<{ data: { live: boolean }[] }>(
        await h.call('GET', '/v1/merchant/payments'),
        200,
      );
      assert.ok(testList.data.length > 0 && testList.data.every((p) => p.live === false));
      const liveList = await expectJson<{ data: { live: boolean }[] }>(
        await h.call('GET', '/v1/payments', { live: true }),
        200,
      );
      assert.ok(liveList.data.length > 0 && liveList.data.every((p) => p.live === true));
    });

    it('an unknown payment id answers exactly like another mode’s payment', async () => {
      const message = await expectError(
        await h.call('GET', `/v1/merchant/payment/${unknownPayment}`),
        404,
        'payment_not_found',
      );
      assert.equal(message, `No payment with id ${unknownPayment}.`);
    });
  });

  describe('sandbox (PAYGATE_ENV=staging)', () => {
    let sandbox: Harness;
    before(async () => {
      sandbox = await startHarness({
        config: { PAYGATE_ENV: 'staging', PUBLIC_BASE_URL: 'https://sandbox.example.com', PAYGATE_CHAINS: 'local' },
      });
    });
    after(() => sandbox.close());

    it('a live key is 403 not_sandbox_api_key on every operation', async () => {
      for (const op of operations) {
        await expectError(
          await sandbox.call(op.method, op.path(unknownPayment), { body: op.body, live: true }),
          403,
          'not_sandbox_api_key',
        );
      }
    });

    it('a live key is refused even if the sandbox has never heard of it', async () => {
      const res = await sandbox.call('GET', '/v1/merchant/payments', {
        headers: { 'Api-Key': `sk_live_${'B'.repeat(32)}` },
      });
      await expectError(res, 403, 'not_sandbox_api_key');
    });

    it('a test key works, and the gatewayUrl is on the public base URL', async () => {
      const created = await createPayment(sandbox);
      assert.equal(created.gatewayUrl, `https://sandbox.example.com/pay/${created.paymentId}`);
    });
  });
});
