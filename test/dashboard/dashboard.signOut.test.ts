import assert from 'node:assert/strict';
import { expectError, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, signInAs, type Person } from './people.js';

describe('dashboard.signOut', () => {
  let h: Harness;
  let owner: Person;
  before(async () => {
    h = await startHarness();
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
  });
  after(() => h.close());

  it('signOut: 204, clears the cookie, and the session no longer works', async () => {
    const me = await signInAs(h, owner);
    const res = await callAs(h, me, 'POST', '/v1/dashboard/auth/logout');
    assert.equal(res.status, 204);
    const cleared = res.headers.getSetCookie();
    assert.deepEqual(cleared, ['paygate_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict']);
    await expectError(await callAs(h, me, 'GET', '/v1/dashboard/session'), 401, 'unauthorized');
  });

  it('signOut: 403 forbidden without the CSRF token; the session stays valid', async () => {
    const me = await signInAs(h, owner);
    await expectError(
      await callAs(h, me, 'POST', '/v1/dashboard/auth/logout', { headers: { 'X-CSRF-Token': null } }),
      403,
      'forbidden',
    );
    assert.equal((await callAs(h, me, 'GET', '/v1/dashboard/session')).status, 200);
  });

  it('signOut: 401 without a session, and an API key is no session', async () => {
    await expectError(await h.call('POST', '/v1/dashboard/auth/logout'), 401, 'missing_merchant_api_key');
  });
});
