import assert from 'node:assert/strict';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { expectError, expectJson, startGatewayHarness, unknownPayment, type GatewayHarness } from './harness.js';

describe('gateway.getPayment', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGatewayHarness();
  });
  after(() => h.close());

  const get = (id: string, headers: Record<string, string | null> = {}, query = '') =>
    h.call('GET', `/v1/gateway/payment/${id}${query}`, { headers });

  it('200: status, the fiat amount with its display, expiry in Unix seconds, the merchant, no buyer yet', async () => {
    const id = await h.createPayment();
    const logo = '/logos/9f2c1b0e4d5a6c7b8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f.png';
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ icon_url: logo });
    const merchant = (await findMerchant(h.runtime.db.knex, h.account.merchantId))!;
    const row = (await h.runtime.db.knex('payments').where({ id }).first()) as { expires_at: number | string };
    assert.deepEqual(await expectJson(await get(id), 200), {
      status: 'requires_action',
      amount: {
        unit: 'iso4217/USD',
        value: '1250',
        display: {
          assetSymbol: 'USD',
          assetName: 'US Dollar',
          decimals: 2,
          iconUrl: null,
          networkIconUrl: null,
          networkName: null,
        },
      },
      expiresAt: Math.floor(Number(row.expires_at) / 1000),
      merchant: { name: merchant.name, iconUrl: logo },
      buyer: null,
      description: null,
      lineItems: [],
    });
  });

  it('200: a remote icon URL written by an older release during an upgrade is no icon, never passed to the buyer', async () => {
    const id = await h.createPayment();
    await h.runtime.db
      .knex('merchants')
      .where({ id: h.account.merchantId })
      .update({ icon_url: 'https://m.example/i.png' });
    const info = await expectJson<{ merchant: { iconUrl: string | null } }>(await get(id), 200);
    assert.equal(info.merchant.iconUrl, null);
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ icon_url: null });
  });

  it('200 in every status, read with an app id too', async () => {
    const app = { 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': 'install-1' };
    for (const steps of [['processing'], ['processing', 'succeeded'], ['failed'], ['cancelled']]) {
      const id = await h.createPayment();
      await h.simulate(id, ...steps);
      const info = await expectJson<{ status: string }>(await get(id, app), 200);
      assert.equal(info.status, steps.at(-1));
    }
  });

  it('200 expired: a payment past expiresAt is expired on read, with its event', async () => {
    const id = await h.createPayment({ expiresInSeconds: 90 });
    h.clock.advance(90_000);
    assert.equal((await expectJson<{ status: string }>(await get(id), 200)).status, 'expired');
    const events = await h.runtime.db.knex('events').where({ payment_id: id }).orderBy('state_version');
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['payment.created', 'payment.expired'],
    );
  });

  it('400 params_validation for a payment id or a Client-Id over 128 characters', async () => {
    await expectError(await get('x'.repeat(129)), 400, 'params_validation');
    const id = await h.createPayment();
    const app = { 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': 'c'.repeat(129) };
    await expectError(await get(id, app), 400, 'params_validation');
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    const id = await h.createPayment();
    await expectError(await get(id, {}, '?includeEverything=1'), 400, 'invalid_params');
  });

  it('403 forbidden for a payment of the other mode', async () => {
    const live = await h.createPayment({ live: true });
    await expectError(await get(live), 403, 'forbidden');
  });

  it('404 payment_not_found for an unknown id, malformed or not', async () => {
    await expectError(await get(unknownPayment), 404, 'payment_not_found');
    await expectError(await get('pay_short'), 404, 'payment_not_found');
  });

  it('500 internal_error with a generic message when storage fails', async () => {
    const id = await h.createPayment();
    await h.runtime.db.knex.schema.renameTable('payments', 'payments_unavailable');
    try {
      const message = await expectError(await get(id), 500, 'internal_error');
      assert.equal(message, 'An internal error occurred.');
    } finally {
      await h.runtime.db.knex.schema.renameTable('payments_unavailable', 'payments');
    }
  });
});
