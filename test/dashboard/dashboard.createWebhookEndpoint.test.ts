import assert from 'node:assert/strict';
import { findActiveEndpoint } from '../../server/src/db/queries/webhooks.js';
import {
  expectError,
  expectJson,
  PUBLIC_ADDRESS,
  resolvePublic,
  seconds,
  startDashboard,
  type Dashboard,
  type Endpoint,
} from './harness.js';

const ALL_TYPES = [
  'payment.created',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.expired',
  'payment.cancelled',
  'payment.settled',
];
const PATH = '/v1/dashboard/webhook-endpoint';

describe('dashboard.createWebhookEndpoint', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
    resolvePublic(d, {
      'loopback.example.com': ['127.0.0.1'],
      'private.example.com': ['10.0.0.12'],
      'mixed.example.com': [PUBLIC_ADDRESS, '192.168.1.7'],
      'nowhere.example.com': [],
    });
  });
  after(() => d.close());

  describe('201', () => {
    it('registers the test endpoint with every event type and shows the secret once; GET never does', async () => {
      const m = await d.merchant();
      const { endpoint, secret } = await m.createEndpoint();
      const now = seconds(d.harness.clock.now());
      assert.match(endpoint.id, /^whe_[0-9A-Za-z]{16}$/);
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(endpoint, {
        id: endpoint.id,
        url: m.url,
        eventTypes: ALL_TYPES,
        enabled: true,
        disabledReason: null,
        mode: 'test',
        createdAt: now,
        secretRotatedAt: null,
        previousSecretExpiresAt: null,
        failingSince: null,
      });
      const res = await m.call('GET', PATH);
      const text = await res.text();
      assert.equal(res.status, 200);
      assert.ok(!text.includes(secret) && !text.includes(secret.slice(6)), 'the secret is never shown again');
      assert.ok(!('secret' in (JSON.parse(text) as Record<string, unknown>)));
    });

    it('stores the secret sealed: the column holds neither the secret nor its key bytes, and opens to it', async () => {
      const m = await d.merchant();
      const { endpoint, secret } = await m.createEndpoint();
      const row = (await d.harness.runtime.db.knex('webhook_endpoints').where({ id: endpoint.id }).first()) as {
        secret_sealed: string;
      };
      assert.ok(!row.secret_sealed.includes(secret));
      assert.ok(!row.secret_sealed.includes(secret.slice('whsec_'.length)));
      assert.ok(!row.secret_sealed.includes(Buffer.from(secret.slice(6), 'base64').toString('base64url')));
      assert.equal(d.harness.runtime.secretBox.open(row.secret_sealed, endpoint.id), secret);
    });

    it('the secret verifies a real delivery with @paygate/webhook-verifier', async () => {
      const m = await d.merchant();
      const { secret } = await m.createEndpoint();
      const paymentId = await m.createPayment();
      await d.drain();
      const [hit] = m.received();
      const event = d.verifier(secret).verify(hit!.body, hit!.headers) as {
        id: string;
        type: string;
        data: { payment_id: string; live: boolean };
      };
      assert.equal(event.type, 'payment.created');
      assert.equal(event.data.payment_id, paymentId);
      assert.equal(event.data.live, false);
      assert.equal(hit!.headers['webhook-id'], event.id);
    });

    it('eventTypes limits what is delivered', async () => {
      const m = await d.merchant();
      const { endpoint } = await m.createEndpoint({ url: m.url, eventTypes: ['payment.succeeded', 'payment.failed'] });
      assert.deepEqual(endpoint.eventTypes, ['payment.succeeded', 'payment.failed']);
      await m.createPayment();
      await d.drain();
      assert.deepEqual(await m.deliveries(), [], 'payment.created is not subscribed');
      assert.equal(m.received().length, 0);
    });

    it('a live key registers the live endpoint, beside the test one; https to a public address', async () => {
      const m = await d.merchant();
      await m.createEndpoint();
      const { endpoint } = await m.createEndpoint({ url: 'https://hooks.example.com:8443/paygate' }, { live: true });
      assert.equal(endpoint.mode, 'live');
      const live = await expectJson<Endpoint>(await m.call('GET', PATH, { live: true }), 200);
      assert.equal(live.id, endpoint.id);
      const test = await expectJson<Endpoint>(await m.call('GET', PATH), 200);
      assert.notEqual(test.id, endpoint.id);
    });
  });

  describe('400 params_validation: the URL rule', () => {
    const refused: [string, string, RegExp][] = [
      ['http:// on a public host', 'http://hooks.example.com/x', /must use https/],
      ['a loopback literal', 'https://127.0.0.1/x', /127\.0\.0\.1 is not publicly routable/],
      ['localhost', 'https://localhost/x', /not publicly routable/],
      ['a name resolving to 127.0.0.1', 'https://loopback.example.com/x', /resolves to 127\.0\.0\.1/],
      ['a name resolving to a private address', 'https://private.example.com/x', /resolves to 10\.0\.0\.12/],
      ['a name with one private answer among public ones', 'https://mixed.example.com/x', /192\.168\.1\.7/],
      ['the cloud metadata address', 'https://169.254.169.254/latest', /169\.254\.169\.254/],
      ['IPv6 loopback', 'https://[::1]/x', /not publicly routable/],
      ['an IPv4-mapped private address', 'https://[::ffff:10.0.0.1]/x', /not publicly routable/],
      ['CGNAT', 'https://100.64.0.1/x', /not publicly routable/],
      ['a host that does not resolve', 'https://nowhere.example.com/x', /does not resolve/],
      ['credentials', 'https://user:pass@hooks.example.com/x', /credentials/],
    ];
    for (const [what, url, pattern] of refused) {
      it(`live: ${what}`, async () => {
        const m = await d.merchant();
        const res = await m.call('POST', PATH, { body: { url }, live: true });
        assert.match(await expectError(res, 400, 'params_validation'), pattern);
        await expectError(await m.call('GET', PATH, { live: true }), 404, 'invalid_params');
      });
    }

    it('test mode may use http:// on loopback (PAYGATE_WEBHOOK_ALLOW_LOOPBACK), never a private address', async () => {
      const m = await d.merchant();
      await expectError(await m.call('POST', PATH, { body: { url: 'http://10.1.2.3/x' } }), 400, 'params_validation');
      await m.createEndpoint({ url: 'http://localhost:1/x' });
    });

    it('without PAYGATE_WEBHOOK_ALLOW_LOOPBACK, loopback is refused in test mode too', async () => {
      const strict = await startDashboard({ config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'false' } });
      try {
        const m = await strict.merchant();
        const res = await m.call('POST', PATH, { body: { url: m.url } });
        assert.match(await expectError(res, 400, 'params_validation'), /^url: /);
      } finally {
        await strict.close();
      }
    });
  });

  describe('400 schema', () => {
    const bodies: [string, unknown, string][] = [
      ['a missing url', { eventTypes: ['payment.created'] }, 'params_validation'],
      ['an unknown field', { url: 'http://127.0.0.1:1/x', secret: 'whsec_mine' }, 'params_validation'],
      ['an empty eventTypes', { url: 'http://127.0.0.1:1/x', eventTypes: [] }, 'params_validation'],
      ['an unknown event type', { url: 'http://127.0.0.1:1/x', eventTypes: ['payment.refunded'] }, 'params_validation'],
      [
        'a repeated event type',
        { url: 'http://127.0.0.1:1/x', eventTypes: ['payment.created', 'payment.created'] },
        'params_validation',
      ],
      ['a URL over 2048 characters', { url: `https://hooks.example.com/${'a'.repeat(2048)}` }, 'params_validation'],
      ['a body that is not an object', ['http://127.0.0.1:1/x'], 'invalid_params'],
    ];
    for (const [what, body, code] of bodies) {
      it(`${what}: ${code}`, async () => {
        const m = await d.merchant();
        await expectError(await m.call('POST', PATH, { body }), 400, code);
        assert.equal(await findActiveEndpoint(d.harness.runtime.db.knex, m.account.merchantId, 'test'), null);
      });
    }

    it('malformed JSON: invalid_params', async () => {
      const m = await d.merchant();
      await expectError(await m.call('POST', PATH, { raw: '{"url":' }), 400, 'invalid_params');
    });
  });

  it('404 merchant_not_found for an unknown Merchant-Id', async () => {
    const m = await d.merchant();
    const res = await m.call('POST', PATH, {
      body: { url: m.url },
      headers: { 'Merchant-Id': 'mer_Zz9Yy8Xx7Ww6Vv5U' },
    });
    await expectError(res, 404, 'merchant_not_found');
  });

  it('409 invalid_state: one endpoint per mode, enabled or not', async () => {
    const m = await d.merchant();
    const { endpoint } = await m.createEndpoint();
    const again = await m.call('POST', PATH, { body: { url: `${m.url}/other` } });
    assert.match(await expectError(again, 409, 'invalid_state'), new RegExp(endpoint.id));
    await expectJson(await m.call('PATCH', PATH, { body: { enabled: false } }), 200);
    await expectError(await m.call('POST', PATH, { body: { url: m.url } }), 409, 'invalid_state');
  });

  it('409 for the loser of two concurrent creates', async () => {
    const m = await d.merchant();
    const [a, b] = await Promise.all([
      m.call('POST', PATH, { body: { url: m.url } }),
      m.call('POST', PATH, { body: { url: m.url } }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [201, 409]);
    const loser = a.status === 409 ? a : b;
    await expectError(loser, 409, 'invalid_state');
  });

  it('413 for a body over 256 KiB, 415 for another content type', async () => {
    const m = await d.merchant();
    const raw = JSON.stringify({ url: m.url, pad: 'x'.repeat(300 * 1024) });
    await expectError(await m.call('POST', PATH, { raw }), 413, 'invalid_params');
    const text = await m.call('POST', PATH, { raw: `url=${m.url}`, headers: { 'Content-Type': 'text/plain' } });
    await expectError(text, 415, 'invalid_params');
  });
});
