import assert from 'node:assert/strict';
import {
  expectError,
  expectJson,
  seconds,
  startDashboard,
  type Dashboard,
  type Endpoint,
  type Merchant,
} from './harness.js';

const PATH = '/v1/dashboard/webhook-endpoint';
const DAY = 86_400_000;

interface Rotated {
  endpoint: Endpoint;
  secret: string;
  previousSecretExpiresAt: number;
}

describe('dashboard.rotateWebhookSecret', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());

  const rotate = async (m: Merchant) => expectJson<Rotated>(await m.call('POST', `${PATH}/rotate-secret`), 200);

  it('200: a new secret shown once; for 24 hours both sign, and both signatures verify', async () => {
    const m = await d.merchant();
    const { secret: old } = await m.createEndpoint();
    const rotated = await rotate(m);
    const now = seconds(d.harness.clock.now());
    assert.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(rotated.secret, old);
    assert.equal(rotated.previousSecretExpiresAt, now + 86_400);
    assert.equal(rotated.endpoint.previousSecretExpiresAt, rotated.previousSecretExpiresAt);
    assert.equal(rotated.endpoint.secretRotatedAt, now);
    const shown = await m.call('GET', PATH);
    assert.ok(!(await shown.text()).includes(rotated.secret.slice(6)), 'GET never shows it');

    await m.createPayment();
    await d.drain();
    const [hit] = m.received();
    const entries = String(hit!.headers['webhook-signature']).split(' ');
    assert.equal(entries.length, 2);
    assert.ok(entries.every((e) => e.startsWith('v1,')));
    d.verifier(rotated.secret).verify(hit!.body, hit!.headers);
    d.verifier(old).verify(hit!.body, hit!.headers);

    d.harness.clock.advance(DAY + 1000);
    const after = await expectJson<Endpoint>(await m.call('GET', PATH), 200);
    assert.equal(after.previousSecretExpiresAt, null, 'the overlap is over');
    assert.equal(after.secretRotatedAt, now, 'the rotation stays on record');
    await m.createPayment();
    await d.drain();
    const late = m.received()[1]!;
    assert.equal(String(late.headers['webhook-signature']).split(' ').length, 1);
    d.verifier(rotated.secret).verify(late.body, late.headers);
    assert.throws(() => d.verifier(old).verify(late.body, late.headers), /signature/i);
  });

  it('rotating inside the overlap: never more than two signatures, the oldest secret stops at once', async () => {
    const m = await d.merchant();
    const { secret: first } = await m.createEndpoint();
    const second = await rotate(m);
    d.harness.clock.advance(60 * 60_000);
    const third = await rotate(m);
    assert.equal(third.previousSecretExpiresAt, seconds(d.harness.clock.now()) + 86_400, 'a fresh 24 hours');
    await m.createPayment();
    await d.drain();
    const [hit] = m.received();
    assert.equal(String(hit!.headers['webhook-signature']).split(' ').length, 2);
    d.verifier(third.secret).verify(hit!.body, hit!.headers);
    d.verifier(second.secret).verify(hit!.body, hit!.headers);
    assert.throws(() => d.verifier(first).verify(hit!.body, hit!.headers), /signature/i);
  });

  it('two concurrent rotations: the secret of the last answer signs, the other is its previous one', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const answers = await Promise.all([rotate(m), rotate(m)]);
    await m.createPayment();
    await d.drain();
    const [hit] = m.received();
    // Each handed-out secret verifies: none was lost to the race.
    for (const a of answers) d.verifier(a.secret).verify(hit!.body, hit!.headers);
  });

  it('allowed on a disabled endpoint', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectJson(await m.call('PATCH', PATH, { body: { enabled: false } }), 200);
    const rotated = await rotate(m);
    assert.equal(rotated.endpoint.enabled, false);
  });

  it('404 invalid_params without an endpoint for the mode; 404 merchant_not_found', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await m.call('POST', `${PATH}/rotate-secret`, { live: true }), 404, 'invalid_params');
    await expectError(
      await m.call('POST', `${PATH}/rotate-secret`, { headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' } }),
      404,
      'merchant_not_found',
    );
  });

  it('400 invalid_params for an unknown query parameter', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    await expectError(await m.call('POST', `${PATH}/rotate-secret?now=1`), 400, 'invalid_params');
  });
});
