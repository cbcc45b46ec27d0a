import assert from 'node:assert/strict';
import { createKey, createMerchant, createPartner } from '../../server/src/accounts/index.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { merchantDataOperations } from './merchantData.js';

/** The merchant-data operations authenticate like every dashboard operation, and merchant-bound keys stay bound. */
describe('dashboard.merchantData.auth', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
  });
  after(() => d.close());

  for (const op of merchantDataOperations) {
    it(`${op.name}: 401 without Api-Key, 400 without Merchant-Id, 404/403 for an unknown or foreign merchant`, async () => {
      const send = (headers: Record<string, string | null>) =>
        m.call(op.method, op.path(''), { body: op.body, headers });
      await expectError(await send({ 'Api-Key': null }), 401, 'missing_merchant_api_key');
      await expectError(await send({ 'Api-Key': `sk_test_${'A'.repeat(32)}` }), 401, 'invalid_api_key');
      await expectError(await send({ 'Merchant-Id': null }), 400, 'missing_merchant_id');
      await expectError(await send({ 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' }), 404, 'merchant_not_found');
      const other = await createPartner(d.harness.runtime, { name: 'Other partner' });
      const foreign = await createMerchant(d.harness.runtime, { partnerId: other.id, name: 'Other merchant' });
      await expectError(await send({ 'Merchant-Id': foreign.id }), 403, 'forbidden');
      if (op.hasBody) {
        const res = await m.call(op.method, op.path(''), { raw: 'x=1', headers: { 'Content-Type': 'text/plain' } });
        await expectError(res, 415, 'invalid_params');
      }
    });
  }

  it('a key created in the dashboard acts for its merchant only (403 forbidden elsewhere), on the merchant API too', async () => {
    const created = await expectJson<{ secret: string }>(
      await m.call('POST', '/v1/dashboard/api-keys', { body: { mode: 'test', label: 'bound' } }),
      201,
    );
    const bound = { 'Api-Key': created.secret };
    await expectJson(await m.call('GET', '/v1/dashboard/settings', { headers: bound }), 200);
    await expectJson(await m.call('GET', '/v1/merchant/payments', { headers: bound }), 200);
    // A sibling merchant of the same partner, which the partner-wide key may address.
    const sibling = await createMerchant(d.harness.runtime, { partnerId: m.account.partnerId, name: 'Sibling' });
    const toSibling = { ...bound, 'Merchant-Id': sibling.id };
    await expectError(await m.call('GET', '/v1/dashboard/settings', { headers: toSibling }), 403, 'forbidden');
    await expectError(await m.call('GET', '/v1/merchant/payments', { headers: toSibling }), 403, 'forbidden');
    const partnerWide = { 'Merchant-Id': sibling.id };
    await expectJson(await m.call('GET', '/v1/merchant/payments', { headers: partnerWide }), 200);
    // The refusal is not cached as a success, and the success for the own merchant still holds.
    await expectJson(await m.call('GET', '/v1/merchant/payments', { headers: bound }), 200);
  });

  it('a partner-wide key made with paygate admin still acts for every merchant of its partner', async () => {
    const admin = await createKey(d.harness.runtime, {
      kind: 'merchant',
      mode: 'test',
      partnerId: m.account.partnerId,
    });
    const sibling = await createMerchant(d.harness.runtime, { partnerId: m.account.partnerId, name: 'Sibling 2' });
    for (const merchantId of [m.account.merchantId, sibling.id]) {
      const res = await m.call('GET', '/v1/dashboard/settings', {
        headers: { 'Api-Key': admin.secret, 'Merchant-Id': merchantId },
      });
      assert.equal(res.status, 200, merchantId);
    }
  });
});
