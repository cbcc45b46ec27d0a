import assert from 'node:assert/strict';
import { checkWebhookUrl, isPublicAddress, WebhookUrlError, type UrlPolicy } from '../../server/src/webhooks/ssrf.js';

const live: UrlPolicy = { mode: 'live', allowLoopback: true };
const testLoopback: UrlPolicy = { mode: 'test', allowLoopback: true };
const testStrict: UrlPolicy = { mode: 'test', allowLoopback: false };

const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

async function refused(url: string, policy: UrlPolicy, pattern?: RegExp): Promise<void> {
  await assert.rejects(checkWebhookUrl(url, policy), (err: unknown) => {
    assert.ok(err instanceof WebhookUrlError, String(err));
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

describe('webhooks.ssrf', () => {
  it('refuses private, loopback, link-local, CGNAT, multicast and metadata addresses', () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '127.8.8.8',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '52.215.16.239', '2606:4700::6810:84e5', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  it('accepts https to a public address and pins it', async () => {
    const checked = await checkWebhookUrl('https://hooks.example.com/paygate', {
      ...live,
      resolve: resolvesTo('93.184.216.34'),
    });
    assert.equal(checked.address, '93.184.216.34');
    assert.equal(checked.family, 4);
  });

  it('refuses a hostname that resolves to 127.0.0.1 in live mode', async () => {
    await refused(
      'https://rebind.example.com/',
      { ...live, resolve: resolvesTo('127.0.0.1') },
      /127\.0\.0\.1.*not publicly routable/,
    );
  });

  it('refuses when any resolved address is private', async () => {
    await refused(
      'https://mixed.example.com/',
      { ...live, resolve: resolvesTo('93.184.216.34', '10.0.0.5') },
      /10\.0\.0\.5/,
    );
  });

  it('refuses plain http to a public address, in both modes', async () => {
    await refused('http://hooks.example.com/', { ...live, resolve: resolvesTo('93.184.216.34') }, /https/);
    await refused('http://hooks.example.com/', { ...testLoopback, resolve: resolvesTo('93.184.216.34') }, /https/);
  });

  it('allows http on loopback in test mode only with the loopback switch', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:3001/', 'http://[::1]:9/x']) {
      const checked = await checkWebhookUrl(url, testLoopback);
      assert.ok(checked.address === '127.0.0.1' || checked.address === '::1', url);
      await refused(url, testStrict);
      await refused(url, live);
    }
  });

  it('refuses literal private IPs, credentials and garbage', async () => {
    await refused('https://10.0.0.1/', live);
    await refused('https://[::ffff:169.254.169.254]/', live);
    await refused(
      'https://user:pass@hooks.example.com/',
      { ...live, resolve: resolvesTo('93.184.216.34') },
      /credentials/,
    );
    await refused('not a url', live, /not valid/);
    await refused(
      'https://nx.example.invalid/',
      {
        ...live,
        resolve: async () => {
          throw new Error('ENOTFOUND');
        },
      },
      /does not resolve/,
    );
  });
});
