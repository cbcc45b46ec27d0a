import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import express from 'express';
import { webAssets } from '../../server/src/http/webAssets.js';
import { listen, type Listening } from '../helpers/http.js';

const SCRIPT = `console.log(${JSON.stringify('paygate '.repeat(200))});\n`;

describe('hosted checkout: built assets', () => {
  let server: Listening;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-assets-'));
    writeFileSync(join(dir, 'app-abc123.js'), SCRIPT);
    writeFileSync(join(dir, 'app-abc123.js.br'), brotliCompressSync(SCRIPT));
    writeFileSync(join(dir, 'app-abc123.js.gz'), gzipSync(SCRIPT));
    writeFileSync(join(dir, 'plain-def456.css'), 'body{margin:0}');
    const app = express();
    app.use('/checkout/assets', webAssets(dir));
    server = await listen(app);
  });
  after(() => server.close());

  // Node's fetch decodes br and gzip itself, so what it reads is the script whatever the encoding.
  async function get(path: string, acceptEncoding: string) {
    const res = await fetch(`${server.url}${path}`, { headers: { 'Accept-Encoding': acceptEncoding } });
    return { res, body: await res.text() };
  }

  it('GET an asset: Brotli when accepted, else gzip, else as is; always the same script, typed, cached for a year', async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      const { res, body } = await get('/checkout/assets/app-abc123.js', accept);
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers.get('content-encoding'), encoding, accept);
      assert.match(res.headers.get('content-type') ?? '', /^(text|application)\/javascript/, accept);
      assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000, immutable/, accept);
      assert.match(res.headers.get('vary') ?? '', /Accept-Encoding/i, accept);
      assert.equal(body, SCRIPT, accept);
    }
  });

  it('GET an asset without compressed copies sends it as is; an unknown one is left to the next handler (404)', async () => {
    const css = await get('/checkout/assets/plain-def456.css', 'br, gzip');
    assert.equal(css.res.headers.get('content-encoding'), null);
    assert.equal(css.body, 'body{margin:0}');
    assert.equal((await get('/checkout/assets/missing.js', 'br')).res.status, 404);
    assert.equal((await get('/checkout/assets/..%2F..%2Fetc%2Fpasswd.js', 'br')).res.status, 404);
    assert.ok((await get('/checkout/assets/%E0%A4%A.js', 'br')).res.status < 500, 'bad percent-encoding is no 500');
  });
});
