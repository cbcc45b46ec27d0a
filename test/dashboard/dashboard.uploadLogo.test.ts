import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createKey } from '../../server/src/accounts/index.js';
import { listAudit } from '../../server/src/audit/auditLog.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { jpegLogo, pngLogo, SECRET, SVG_LOGO, webpLogo } from './logoFiles.js';
import { callAs, createPerson, sessionFor, type SignedIn } from './people.js';

interface Settings {
  iconUrl: string | null;
  name: string;
}

describeEachDatabase('dashboard.uploadLogo', (get) => {
  let d: Dashboard;
  let m: Merchant;
  let owner: SignedIn;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    const person = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role: 'owner' });
    owner = await sessionFor(d.harness, person);
  });
  after(() => d.close());

  const upload = (bytes: Buffer | string) =>
    callAs(d.harness, owner, 'PUT', '/v1/dashboard/settings/logo', {
      body: { image: typeof bytes === 'string' ? bytes : bytes.toString('base64') },
      merchantId: m.account.merchantId,
    });
  const remove = () =>
    callAs(d.harness, owner, 'DELETE', '/v1/dashboard/settings/logo', { merchantId: m.account.merchantId });
  const served = (path: string) => fetch(`${d.harness.server.url}${path}`);

  it('uploadLogo stores a PNG without its metadata and serves it by its hash with a strict type, nosniff and a long cache', async () => {
    const settings = await expectJson<Settings>(await upload(pngLogo()), 200);
    const match = /^\/logos\/([0-9a-f]{64})\.png$/.exec(settings.iconUrl ?? '');
    assert.ok(match, `iconUrl ${settings.iconUrl}`);
    const res = await served(settings.iconUrl!);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(createHash('sha256').update(bytes).digest('hex'), match[1], 'the name is the served bytes’ hash');
    assert.equal(bytes.includes(SECRET), false, 'the text and EXIF chunks are gone');
    assert.deepEqual(bytes, pngLogo(64, 64, false), 'the picture’s own chunks are kept as they were');
    assert.equal(
      (await expectJson<Settings>(await m.call('GET', '/v1/dashboard/settings'), 200)).iconUrl,
      settings.iconUrl,
    );
  });

  it('uploadLogo: the checkout names the served logo as the merchant’s icon', async () => {
    const settings = await expectJson<Settings>(await upload(pngLogo(40, 96)), 200);
    const id = await m.createPayment();
    const wallet = await createKey(d.harness.runtime, { kind: 'wallet', mode: 'test' });
    const info = await expectJson<{ merchant: { iconUrl: string | null } }>(
      await fetch(`${d.harness.server.url}/v1/gateway/payment/${id}`, { headers: { 'Api-Key': wallet.secret } }),
      200,
    );
    assert.equal(info.merchant.iconUrl, settings.iconUrl);
  });

  it('uploadLogo cleans JPEG and WebP files of EXIF, XMP, comments and trailing bytes', async () => {
    for (const [file, ext, type] of [
      [jpegLogo(), 'jpg', 'image/jpeg'],
      [webpLogo(), 'webp', 'image/webp'],
    ] as const) {
      const settings = await expectJson<Settings>(await upload(file), 200);
      assert.match(settings.iconUrl ?? '', new RegExp(`^/logos/[0-9a-f]{64}\\.${ext}$`));
      const res = await served(settings.iconUrl!);
      assert.equal(res.headers.get('content-type'), type);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(bytes.includes(SECRET), false, `${type} metadata removed`);
      if (type === 'image/webp') {
        assert.equal(bytes.readUInt32LE(4), bytes.length - 8, 'the RIFF size follows the dropped chunks');
        assert.equal(bytes[20]! & 0x0c, 0, 'VP8X no longer announces EXIF or XMP');
      }
    }
  });

  it('uploadLogo refuses SVG, other files, damaged ones and sizes out of bounds with params_validation on image', async () => {
    await expectJson(await upload(pngLogo()), 200);
    const before = (await expectJson<Settings>(await m.call('GET', '/v1/dashboard/settings'), 200)).iconUrl;
    const damaged = pngLogo();
    damaged[40] = damaged[40]! ^ 0xff;
    const cases: [string, Buffer | string, RegExp][] = [
      ['svg', SVG_LOGO, /SVG logos are not accepted/],
      ['text', Buffer.from('GIF89a not really'), /not a PNG, JPEG or WebP image/],
      ['damaged', damaged, /damaged or incomplete/],
      ['truncated', pngLogo().subarray(0, 60), /damaged or incomplete/],
      ['tiny', pngLogo(16, 16), /16 × 16 px; each side must be 32–2048 px/],
      ['huge', pngLogo(4000, 40), /4000 × 40 px/],
      ['heavy', Buffer.concat([pngLogo(), Buffer.alloc(130 * 1024)]), /at most 128 KiB/],
      ['not base64', 'data:image/png;base64,AAAA', /base64/],
    ];
    for (const [what, file, message] of cases) {
      const res = await upload(file);
      const body = (await res.clone().json()) as { param?: string; message: string };
      await expectError(res, 400, 'params_validation');
      assert.equal(body.param, 'image', `${what}: ${JSON.stringify(body)}`);
      assert.match(body.message, message, what);
    }
    const after = (await expectJson<Settings>(await m.call('GET', '/v1/dashboard/settings'), 200)).iconUrl;
    assert.equal(after, before, 'a refused upload keeps the logo');
  });

  it('removeLogo removes it, and its URL then answers 404', async () => {
    const { iconUrl } = await expectJson<Settings>(await upload(pngLogo(33, 33)), 200);
    assert.equal((await served(iconUrl!)).status, 200);
    assert.equal((await expectJson<Settings>(await remove(), 200)).iconUrl, null);
    assert.equal((await served(iconUrl!)).status, 404);
    assert.equal((await expectJson<Settings>(await remove(), 200)).iconUrl, null, 'removing none is no error');
    assert.equal((await served('/logos/../../etc/passwd')).status, 404);
    assert.equal((await served(iconUrl!.replace('.png', '.webp'))).status, 404, 'the extension is the type’s');
    const audit = await listAudit(d.harness.runtime, m.account.merchantId, { limit: 100 });
    const logged = audit.data.filter((e) => e.action === 'uploadLogo' || e.action === 'removeLogo');
    assert.ok(
      logged.some((e) => e.action === 'uploadLogo' && e.details?.iconUrl === iconUrl && e.mode === null),
      'the upload is audited merchant-wide with its URL',
    );
    assert.ok(logged.some((e) => e.action === 'removeLogo'));
  });

  it('uploadLogo and removeLogo are the owner’s: an API key (developer) is refused', async () => {
    const body = { image: pngLogo().toString('base64') };
    await expectError(await m.call('PUT', '/v1/dashboard/settings/logo', { body }), 403, 'forbidden');
    await expectError(await m.call('DELETE', '/v1/dashboard/settings/logo'), 403, 'forbidden');
  });
});
