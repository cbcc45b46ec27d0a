/**
 * The dashboard web app's page (web/dashboard.html, built by the test setup) as the server serves it: one page for
 * /dashboard and every path under it, with a 'self'-only CSP that nothing may frame, and its built assets under
 * /dashboard/assets/ cached for a year like the checkout's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type Runtime } from '@paygate/server';
import { DEFAULT_WEB_DIST } from '../../server/src/http/webPages.js';
import { listen, type Listening } from '../helpers/http.js';
import { testRuntime } from '../helpers/runtime.js';

describe('dashboard.page served', () => {
  let runtime: Runtime;
  let server: Listening;
  before(async () => {
    runtime = await testRuntime();
    server = await listen(createApp({ runtime, webDir: DEFAULT_WEB_DIST }));
  });
  after(async () => {
    await server.close();
    await runtime.close();
  });

  function assertPage(res: Response, html: string, path: string) {
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
    assert.equal(res.headers.get('cache-control'), 'no-store', path);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/, path);
    assert.match(csp, /script-src 'self'(;|$)/, path);
    assert.match(csp, /style-src 'self'(;|$)/, path);
    assert.match(csp, /connect-src 'self'(;|$)/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.ok(!/unsafe-inline|unsafe-eval|https?:/.test(csp), `${path}: no inline, eval or other origin in ${csp}`);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
    assert.match(html, /<div id="app"><\/div>/, path);
    // Nothing executable inline: every <script> is a built file or the JSON config block.
    const inline = [...html.matchAll(/<script(\s[^>]*)?>/g)].filter(
      ([, a = '']) => !/\bsrc=|application\/json/.test(a),
    );
    assert.deepEqual(inline, [], path);
    assert.ok(!/<style\b|\sstyle=/.test(html), `${path}: no inline style`);
    assert.match(html, /<script type="module" crossorigin src="\/dashboard\/assets\/[^"]+\.js">/, path);
  }

  it('GET /dashboard and every app route answer the same page with the CSP, framed by nobody', async () => {
    const first = await fetch(`${server.url}/dashboard`);
    const page = await first.text();
    assertPage(first, page, '/dashboard');
    for (const path of [
      '/dashboard/',
      '/dashboard/login',
      '/dashboard/invite',
      '/dashboard/payments/pay_123',
      '/dashboard/settings/security',
      '/dashboard/x',
      '/dashboard/no/such/page?x=1',
    ]) {
      const res = await fetch(`${server.url}${path}`);
      const html = await res.text();
      assertPage(res, html, path);
      assert.equal(html, page, `${path} is the same single-page app`);
    }
  });

  it('GET /dashboard carries the chains the server knows in its JSON config block, not as script', async () => {
    const html = await (await fetch(`${server.url}/dashboard`)).text();
    const block = /<script type="application\/json" id="paygate-config">([^<]*)<\/script>/.exec(html);
    assert.ok(block, 'the config block');
    const config = JSON.parse(block[1]!) as { chains: unknown[] };
    assert.ok(Array.isArray(config.chains));
  });

  it('GET /dashboard/assets/<built file>: compressed when accepted, typed, cached for a year; a missing one is a 404, not the page', async () => {
    const html = readFileSync(join(DEFAULT_WEB_DIST, 'dashboard.html'), 'utf8');
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const style = /href="(\/dashboard\/assets\/[^"]+\.css)"/.exec(html)![1]!;
    for (const [path, type] of [
      [script, /javascript/],
      [style, /text\/css/],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { headers: { 'Accept-Encoding': 'br' } });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-encoding'), 'br', path);
      assert.match(res.headers.get('content-type') ?? '', type, path);
      assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000, immutable/, path);
      assert.ok((await res.text()).length > 100, path);
    }
    const missing = await fetch(`${server.url}/dashboard/assets/missing-abc.js`);
    assert.equal(missing.status, 404);
    assert.doesNotMatch(await missing.text(), /<div id="app">/);
  });

  it('the API under /v1/dashboard keeps its JSON headers (no page, no page CSP)', async () => {
    const res = await fetch(`${server.url}/v1/dashboard/webhook-endpoint`);
    assert.equal(res.status, 401);
    assert.match(res.headers.get('content-type') ?? '', /json/);
    assert.doesNotMatch(res.headers.get('content-security-policy') ?? '', /script-src/);
  });
});
