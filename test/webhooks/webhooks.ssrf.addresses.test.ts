/**
 * The webhook URL rule against the forms an attacker reaches for: every encoding of a private IPv4 address, every
 * IPv6 form that embeds or reaches one, trailing dots, userinfo and names that resolve inward. Each is refused at
 * create and at update (the dashboard API), and at delivery time (a live endpoint whose name later resolves to it,
 * and one whose stored URL is the form itself). A table of public addresses proves the rule is not "refuse all".
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { checkWebhookUrl, isPublicAddress, WebhookUrlError } from '../../server/src/webhooks/ssrf.js';
import { expectError, expectJson, PUBLIC_ADDRESS, startDashboard, type Dashboard } from '../dashboard/harness.js';

/** Literal hosts, each refused in live mode whatever the loopback switch says. */
const LITERALS = [
  // IPv4 loopback, metadata and private ranges, in every spelling the URL parser normalises.
  'https://127.0.0.1/h',
  'https://127.1/h',
  'https://2130706433/h',
  'https://0x7f000001/h',
  'https://0x7f.0.0.1/h',
  'https://0177.0.0.1/h',
  'https://0177.1/h',
  'https://127.0.0.1./h',
  'https://%31%32%37.0.0.1/h',
  'https://１２７.０.０.１/h',
  'https://127.0.0.1:8443/h',
  'https://169.254.169.254/latest/meta-data/',
  'https://0xa9fea9fe/h',
  'https://2852039166/h',
  'https://0251.0376.0251.0376/h',
  'https://169.254.169.254./h',
  'https://10.0.0.1/h',
  'https://012.0.0.1/h',
  'https://172.16.0.1/h',
  'https://172.31.255.255/h',
  'https://192.168.0.1/h',
  'https://100.64.0.1/h',
  'https://0.0.0.0/h',
  'https://0/h',
  'https://255.255.255.255/h',
  'https://224.0.0.1/h',
  'https://192.0.0.8/h',
  'https://192.0.2.1/h',
  'https://198.18.0.1/h',
  'https://198.51.100.7/h',
  'https://203.0.113.9/h',
  'https://240.0.0.1/h',
  'https://192.88.99.1/h',
  // IPv6 loopback and unspecified, and every IPv4 embedding of a private address.
  'https://[::1]/h',
  'https://[::]/h',
  'https://[0:0:0:0:0:0:0:1]/h',
  'https://[::127.0.0.1]/h',
  'https://[::7f00:1]/h',
  'https://[::169.254.169.254]/h',
  'https://[::a9fe:a9fe]/h',
  'https://[::ffff:127.0.0.1]/h',
  'https://[::ffff:7f00:1]/h',
  'https://[0::ffff:127.0.0.1]/h',
  'https://[::ffff:169.254.169.254]/h',
  'https://[::ffff:10.0.0.1]/h',
  'https://[::ffff:0:127.0.0.1]/h',
  'https://[::ffff:0:7f00:1]/h',
  'https://[::ffff:0:a9fe:a9fe]/h',
  // Transition ranges reach IPv4 through a translator: refused whatever they carry, public addresses included.
  'https://[64:ff9b::7f00:1]/h',
  'https://[64:ff9b::808:808]/h',
  'https://[64:ff9b:1::a9fe:a9fe]/h',
  'https://[2002:7f00:1::1]/h',
  'https://[2002:808:808::1]/h',
  'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h',
  // Other special-purpose IPv6.
  'https://[fe80::1]/h',
  'https://[fc00::1]/h',
  'https://[fd00:ec2::254]/h',
  'https://[ff02::1]/h',
  'https://[2001:db8::1]/h',
  'https://[100::1]/h',
  'https://[fec0::1]/h',
  'https://[2001:2::1]/h',
  'https://[3fff::1]/h',
  // Loopback names and credentials.
  'https://localhost/h',
  'https://localhost./h',
  'https://LOCALHOST/h',
  'https://user@127.0.0.1/h',
  'https://evil.example@127.0.0.1/h',
  'https://8.8.8.8@127.0.0.1/h',
  'https://user:pass@hooks.example/h',
  // Plain http, even to a public address.
  'http://8.8.8.8/h',
];

/** What a name may resolve to at delivery time, each refused. */
const ANSWERS = [
  '127.0.0.1',
  '127.8.8.8',
  '169.254.169.254',
  '10.1.2.3',
  '192.168.1.1',
  '100.64.0.1',
  '0.0.0.0',
  '::1',
  '::',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::7f00:1',
  '::ffff:0:7f00:1',
  '::ffff:0:a9fe:a9fe',
  '64:ff9b::a00:1',
  '2002:a00:1::1',
  'fe80::1',
  'fd00:ec2::254',
];

const PUBLIC_LITERALS = ['https://8.8.8.8/h', 'https://[2606:4700:4700::1111]/h', 'https://[::ffff:8.8.8.8]/h'];
const PUBLIC_ADDRESSES = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2001:4860:4860::8888'];

const family = (address: string) => (address.includes(':') ? 6 : 4);

describe('webhooks.ssrf: the address table', () => {
  it('has at least 50 tricky forms', () => {
    assert.ok(LITERALS.length + ANSWERS.length >= 50, `${LITERALS.length + ANSWERS.length} forms`);
  });

  it('checkWebhookUrl refuses every literal form, in live mode and in test mode without the loopback switch', async () => {
    for (const mode of ['live', 'test'] as const) {
      for (const url of LITERALS) {
        await assert.rejects(
          checkWebhookUrl(url, { mode, allowLoopback: mode === 'live', resolve: async () => [] }),
          (err: unknown) => err instanceof WebhookUrlError,
          `${mode} ${url}`,
        );
      }
    }
  });

  it('checkWebhookUrl refuses a name whose answers hold any refused address, and isPublicAddress agrees', async () => {
    for (const address of ANSWERS) {
      assert.equal(isPublicAddress(address), false, address);
      for (const answers of [[address], [PUBLIC_ADDRESS, address]]) {
        await assert.rejects(
          checkWebhookUrl('https://hooks.example/h', {
            mode: 'live',
            allowLoopback: true,
            resolve: async () => answers.map((a) => ({ address: a, family: family(a) })),
          }),
          (err: unknown) => err instanceof WebhookUrlError && err.message.includes('not publicly routable'),
          answers.join(', '),
        );
      }
    }
  });

  it('accepts public addresses, literal or resolved, and pins the address it checked', async () => {
    for (const address of PUBLIC_ADDRESSES) assert.equal(isPublicAddress(address), true, address);
    for (const url of PUBLIC_LITERALS) {
      const checked = await checkWebhookUrl(url, { mode: 'live', allowLoopback: false });
      assert.ok(isPublicAddress(checked.address), url);
    }
    const checked = await checkWebhookUrl('https://hooks.example./h', {
      mode: 'live',
      allowLoopback: false,
      resolve: async () => [{ address: '2606:4700:4700::1111', family: 6 }],
    });
    assert.deepEqual([checked.address, checked.family], ['2606:4700:4700::1111', 6]);
  });
});

describe('webhooks.ssrf: create, update and delivery through the server', function () {
  let d: Dashboard;
  /** What the test resolver answers for `hooks.example` right now. */
  let answer: string[] = [PUBLIC_ADDRESS];

  before(async () => {
    d = await startDashboard();
    d.harness.runtime.webhookOptions.resolve = async () =>
      answer.map((address) => ({ address, family: family(address) }));
  });
  after(() => d.close());
  beforeEach(() => {
    answer = [PUBLIC_ADDRESS];
  });

  it('create (live) refuses every literal form and every inward answer with 400 params_validation', async () => {
    const m = await d.merchant();
    for (const url of LITERALS) {
      await expectError(
        await m.call('POST', '/v1/dashboard/webhook-endpoint', { body: { url }, live: true }),
        400,
        'params_validation',
      );
    }
    for (const address of ANSWERS) {
      answer = [address];
      await expectError(
        await m.call('POST', '/v1/dashboard/webhook-endpoint', {
          body: { url: 'https://hooks.example/h' },
          live: true,
        }),
        400,
        'params_validation',
      );
    }
  });

  it('update refuses them in live mode, and in test mode the IPv6 metadata form', async () => {
    const m = await d.merchant();
    await m.createEndpoint({ url: 'https://hooks.example/live' }, { live: true });
    for (const url of LITERALS) {
      await expectError(
        await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { url }, live: true }),
        400,
        'params_validation',
      );
    }
    for (const address of ANSWERS) {
      answer = [address];
      await expectError(
        await m.call('PATCH', '/v1/dashboard/webhook-endpoint', {
          body: { url: 'https://hooks.example/x' },
          live: true,
        }),
        400,
        'params_validation',
      );
    }
    answer = [PUBLIC_ADDRESS];
    await m.createEndpoint({ url: 'https://hooks.example/test' });
    await expectError(
      await m.call('PATCH', '/v1/dashboard/webhook-endpoint', { body: { url: 'https://[::ffff:0:a9fe:a9fe]/x' } }),
      400,
      'params_validation',
    );
    const endpoint = await expectJson<{ url: string }>(await m.call('GET', '/v1/dashboard/webhook-endpoint'), 200);
    assert.equal(endpoint.url, 'https://hooks.example/test', 'the refused update changed nothing');
  });

  it('delivery refuses to connect when the name now resolves inward, or the stored URL is such a form', async () => {
    const db = d.harness.runtime.db;
    const cases = [
      ...ANSWERS.map((address) => ({ answer: address, url: null as string | null })),
      ...LITERALS.filter((url) => url.startsWith('https://') && !url.includes('@')).map((url) => ({
        answer: PUBLIC_ADDRESS,
        url,
      })),
    ];
    for (const c of cases) {
      const m = await d.merchant();
      answer = [PUBLIC_ADDRESS];
      const path = `/h/${randomBytes(4).toString('hex')}`;
      const created = await m.createEndpoint({ url: `https://hooks.example${path}` }, { live: true });
      // What DNS answers at delivery time, or a URL stored before the rule was what it is now.
      answer = [c.answer];
      if (c.url) await db.knex('webhook_endpoints').where({ id: created.endpoint.id }).update({ url: c.url });
      await m.createPayment({ live: true });
      await d.drain();
      const [delivery] = await m.deliveries('', { live: true });
      const detail = await expectJson<{ attempts: { status: number | null; error: string | null }[] }>(
        await m.call('GET', `/v1/dashboard/webhook-deliveries/${delivery!.id}`, { live: true }),
        200,
      );
      const label = c.url ?? c.answer;
      assert.equal(detail.attempts.length, 1, label);
      assert.equal(detail.attempts[0]!.status, null, `${label}: no request was sent`);
      assert.match(detail.attempts[0]!.error ?? '', /not publicly routable|credentials|https|not valid/, label);
    }
    assert.equal(d.receiver.received.length, 0);
  });
});
