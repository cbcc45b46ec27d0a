/**
 * A merchant key that authenticated is trusted for PAYGATE_CREDENTIAL_CACHE_TTL_MS without another database read
 * (docs/decisions.md §4): revoked in this process it is refused at once, revoked by another process within the TTL.
 * Time moves by the runtime's clock, never by sleeping.
 */
import assert from 'node:assert/strict';
import { createKey, createMerchant, revokeKey, rotateKey } from '../../server/src/accounts/index.js';
import { revokeKey as markRevokedInDatabase } from '../../server/src/db/queries/accounts.js';
import { parseJson, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createPayment, expectError, expectJson, startHarness, type Harness } from './harness.js';

const TTL_MS = 5000;

describe('merchant.auth.revocation', () => {
  let t: TestDatabase;
  let h: Harness;
  let paymentId: string;

  before(async () => {
    // A database file, so that the CLI can revoke from another process.
    t = await createTestDatabase('sqlite');
    h = await startHarness({ db: t.db, config: { PAYGATE_CREDENTIAL_CACHE_TTL_MS: String(TTL_MS) } });
    paymentId = (await createPayment(h)).paymentId;
  });
  after(async () => {
    await h.close();
    await t.drop();
  });

  const statusWith = (apiKey: string, harness = h) =>
    harness.call('GET', `/v1/merchant/payment/${paymentId}/status`, { headers: { 'Api-Key': apiKey } });
  const newKey = (harness = h) =>
    createKey(harness.runtime, { kind: 'merchant', mode: 'test', partnerId: harness.account.partnerId });

  it('a key revoked in this process is refused at once, though it authenticated a moment before', async () => {
    const key = await newKey();
    await expectJson(await statusWith(key.secret), 200);
    await revokeKey(h.runtime, key.key.id);
    await expectError(await statusWith(key.secret), 401, 'invalid_api_key');
  });

  it('a rotated key is refused at once, and its successor works', async () => {
    const key = await newKey();
    await expectJson(await statusWith(key.secret), 200);
    const { created } = await rotateKey(h.runtime, key.key.id);
    await expectError(await statusWith(key.secret), 401, 'invalid_api_key');
    await expectJson(await statusWith(created.secret), 200);
  });

  it('a key revoked by another process is refused once the TTL has passed', async function () {
    this.timeout(120_000);
    const key = await newKey();
    await expectJson(await statusWith(key.secret), 200);
    const revoked = parseJson<{ id: string }>(
      await runCli(['admin', 'revoke-key', key.key.id, '--json'], { DATABASE_URL: t.url }),
    );
    assert.equal(revoked.id, key.key.id);
    // The documented window: this process has not read the key since it was revoked elsewhere.
    h.clock.advance(TTL_MS - 1);
    await expectJson(await statusWith(key.secret), 200);
    h.clock.advance(1);
    await expectError(await statusWith(key.secret), 401, 'invalid_api_key');
  });

  it('a revoked key that was never cached is refused whatever the clock says', async () => {
    const key = await newKey();
    await markRevokedInDatabase(t.db.knex, key.key.id, h.clock.now());
    await expectError(await statusWith(key.secret), 401, 'invalid_api_key');
  });

  it('a refusal is not remembered: a merchant created after a 404 is served at once', async () => {
    const merchantId = 'mer_createdlater0001';
    const headers = { 'Merchant-Id': merchantId };
    await expectError(await h.call('GET', '/v1/merchant/payments', { headers }), 404, 'merchant_not_found');
    await createMerchant(h.runtime, { id: merchantId, partnerId: h.account.partnerId, name: 'Later merchant' });
    const list = await expectJson<{ data: unknown[] }>(await h.call('GET', '/v1/merchant/payments', { headers }), 200);
    assert.deepEqual(list.data, []);
  });

  it('with a TTL of 0, a key revoked by another process is refused at once', async () => {
    const uncached = await startHarness({ db: t.db, config: { PAYGATE_CREDENTIAL_CACHE_TTL_MS: '0' } });
    try {
      const payment = await createPayment(uncached);
      const key = await newKey(uncached);
      const status = () =>
        uncached.call('GET', `/v1/merchant/payment/${payment.paymentId}/status`, {
          headers: { 'Api-Key': key.secret },
        });
      await expectJson(await status(), 200);
      // A write this process's accounts module did not make, as another process's would be.
      await markRevokedInDatabase(t.db.knex, key.key.id, uncached.clock.now());
      await expectError(await status(), 401, 'invalid_api_key');
    } finally {
      await uncached.close();
    }
  });
});
