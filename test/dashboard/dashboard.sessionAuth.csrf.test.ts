import assert from 'node:assert/strict';
import { expectError, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, signInAs, type SignedIn } from './people.js';

/** Every state-changing request made with a session needs the CSRF token and, with an Origin or Referer, this origin. */
describe('dashboard.sessionAuth.csrf', () => {
  let h: Harness;
  let me: SignedIn;
  const body = { url: 'http://127.0.0.1:9/hooks' };
  before(async () => {
    h = await startHarness({ config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true' } });
    const owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    me = await signInAs(h, owner);
  });
  after(() => h.close());

  const create = (headers: Record<string, string | null>) =>
    callAs(h, me, 'POST', '/v1/dashboard/webhook-endpoint', { merchantId: h.account.merchantId, body, headers });

  it('createWebhookEndpoint with a session: 403 forbidden without X-CSRF-Token, and with a wrong one', async () => {
    await expectError(await create({ 'X-CSRF-Token': null }), 403, 'forbidden');
    await expectError(await create({ 'X-CSRF-Token': `${me.csrfToken.slice(0, -1)}A` }), 403, 'forbidden');
    await expectError(await create({ 'X-CSRF-Token': 'short' }), 403, 'forbidden');
  });

  it('createWebhookEndpoint with a session: 403 forbidden for a foreign Origin or, without Origin, a foreign Referer', async () => {
    await expectError(await create({ Origin: 'https://evil.example' }), 403, 'forbidden');
    await expectError(await create({ Origin: 'null' }), 403, 'forbidden');
    await expectError(await create({ Referer: 'https://evil.example/dashboard' }), 403, 'forbidden');
  });

  it('a GET needs no CSRF token', async () => {
    const res = await callAs(h, me, 'GET', '/v1/dashboard/webhook-endpoint', {
      merchantId: h.account.merchantId,
      headers: { 'X-CSRF-Token': null },
    });
    assert.notEqual(res.status, 403);
  });

  it('createWebhookEndpoint with a session: the right token from this origin is accepted', async () => {
    const res = await create({ Origin: h.server.url, Referer: `${h.server.url}/dashboard/webhooks` });
    assert.equal(res.status, 201, await res.text());
  });
});
