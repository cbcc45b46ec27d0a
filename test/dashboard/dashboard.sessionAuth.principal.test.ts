import assert from 'node:assert/strict';
import { createKey } from '../../server/src/accounts/index.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, sessionFor, signInAs, type SignedIn } from './people.js';

/** Which merchant and mode a request acts for, with a session or a key, and who may not act at all. */
describe('dashboard.sessionAuth.principal', () => {
  let h: Harness;
  let me: SignedIn;
  before(async () => {
    h = await startHarness({ config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    const owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    me = await signInAs(h, owner);
  });
  after(() => h.close());

  const endpointPath = '/v1/dashboard/webhook-endpoint';

  it('a session acts in test mode by default and in live mode with Paygate-Mode: live, like the keys', async () => {
    const created = await expectJson<{ endpoint: { id: string } }>(
      await callAs(h, me, 'POST', endpointPath, {
        merchantId: h.account.merchantId,
        body: { url: 'http://127.0.0.1:9/hooks' },
      }),
      201,
    );
    const viaTestKey = await expectJson<{ id: string }>(await h.call('GET', endpointPath), 200);
    assert.equal(viaTestKey.id, created.endpoint.id);
    const viaTestMode = await expectJson<{ id: string }>(
      await callAs(h, me, 'GET', endpointPath, { merchantId: h.account.merchantId, mode: 'test' }),
      200,
    );
    assert.equal(viaTestMode.id, created.endpoint.id);
    await expectError(
      await callAs(h, me, 'GET', endpointPath, { merchantId: h.account.merchantId, mode: 'live' }),
      404,
      'invalid_params',
    );
    await expectError(await h.call('GET', endpointPath, { live: true }), 404, 'invalid_params');
  });

  it('400 params_validation for a Paygate-Mode that is neither test nor live, or that differs from the key', async () => {
    await expectError(
      await callAs(h, me, 'GET', endpointPath, {
        merchantId: h.account.merchantId,
        headers: { 'Paygate-Mode': 'prod' },
      }),
      400,
      'params_validation',
    );
    await expectError(
      await h.call('GET', endpointPath, { headers: { 'Paygate-Mode': 'live' } }),
      400,
      'params_validation',
    );
    assert.equal((await h.call('GET', endpointPath, { headers: { 'Paygate-Mode': 'test' } })).status, 200);
  });

  it('a session without Merchant-Id: 400 missing_merchant_id', async () => {
    await expectError(await callAs(h, me, 'GET', endpointPath), 400, 'missing_merchant_id');
  });

  it('a session for a merchant the user is not a member of (or that does not exist): 403 forbidden', async () => {
    const other = await createMerchantAccount(h.runtime);
    await expectError(await callAs(h, me, 'GET', endpointPath, { merchantId: other.merchantId }), 403, 'forbidden');
    await expectError(
      await callAs(h, me, 'GET', endpointPath, { merchantId: 'mer_Zz9Yy8Xx7Ww6Vv5U' }),
      403,
      'forbidden',
    );
  });

  it('a key bound to one merchant acts for that merchant only: 403 forbidden for another of its partner', async () => {
    const second = await createMerchantAccount(h.runtime, { partnerId: h.account.partnerId });
    const bound = await createKey(h.runtime, { kind: 'merchant', mode: 'test', partnerId: h.account.partnerId });
    await h.runtime.db.knex('api_keys').where({ id: bound.key.id }).update({ merchant_id: second.merchantId });
    await expectError(await h.call('GET', endpointPath, { headers: { 'Api-Key': bound.secret } }), 403, 'forbidden');
    const own = await h.call('GET', endpointPath, {
      headers: { 'Api-Key': bound.secret, 'Merchant-Id': second.merchantId },
    });
    assert.equal(own.status, 404, 'its own merchant: no endpoint yet, but not refused');
  });

  it('an API key on a session-only operation: 401 missing_merchant_api_key (sign in)', async () => {
    await expectError(await h.call('GET', '/v1/dashboard/session'), 401, 'missing_merchant_api_key');
  });

  describe('sandbox (PAYGATE_ENV=staging)', () => {
    let sandbox: Harness;
    before(async () => {
      sandbox = await startHarness({
        config: { PAYGATE_ENV: 'staging', PUBLIC_BASE_URL: 'https://sandbox.example.com', PAYGATE_CHAINS: 'local' },
      });
    });
    after(() => sandbox.close());

    it('a session is 403 forbidden in live mode and served in test mode', async () => {
      const person = await createPerson(sandbox.runtime, { merchantId: sandbox.account.merchantId, role: 'owner' });
      const session = await sessionFor(sandbox, person);
      // Not a loopback development server: the cookie has its __Host- name.
      const who = { ...session, cookie: session.cookie.replace(/^paygate_session=/, '__Host-paygate_session=') };
      const merchantId = sandbox.account.merchantId;
      const live = await callAs(sandbox, who, 'GET', endpointPath, { merchantId, mode: 'live' });
      assert.match(await expectError(live, 403, 'forbidden'), /sandbox/);
      await expectError(await callAs(sandbox, who, 'GET', endpointPath, { merchantId }), 404, 'invalid_params');
    });
  });
});
