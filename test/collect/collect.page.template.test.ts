/**
 * The form page as web/ builds it: its script and style are files under /collect/assets/, nothing is inline but the
 * server's JSON config block, which no value can close.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WEB_DIST, webPageTemplate } from '../../server/src/http/webPages.js';

describe('collect.page template', () => {
  it('renders the config block as data that no value can close', () => {
    const dir = mkdtempSync(join(tmpdir(), 'collect-page-'));
    writeFileSync(
      join(dir, 'page.html'),
      `<!doctype html><html lang="en"><head><script type="module" src="/x.js"></script></head>` +
        `<body><!--paygate-config--></body></html>`,
    );
    const page = webPageTemplate(join(dir, 'page.html'))()!;
    const html = page.render({ error: { code: 'payment_not_found', message: '</script>' } });
    assert.match(
      html,
      /<script type="application\/json" id="paygate-config">\{"error":.*\\u003c\/script>"\}\}<\/script>/,
    );
  });

  it('the built page loads one script and one style of its own, both built files, and nothing inline', () => {
    const page = webPageTemplate(join(DEFAULT_WEB_DIST, 'collect.html'))();
    assert.ok(page, 'web/ is built by the test setup');
    const html = page.render({ schema: {} });
    const scripts = [...html.matchAll(/<script type="module" crossorigin src="\/collect\/assets\/([^"]+\.js)">/g)];
    const styles = [...html.matchAll(/<link rel="stylesheet" crossorigin href="\/collect\/assets\/([^"]+\.css)">/g)];
    assert.equal(scripts.length, 1);
    assert.equal(styles.length, 1);
    for (const [, file] of [...scripts, ...styles]) assert.ok(existsSync(join(DEFAULT_WEB_DIST, 'assets', file!)));
    assert.ok(!/<style\b/.test(html));
    const inlineScripts = [...html.matchAll(/<script(\s[^>]*)?>/g)].filter(
      ([, a = '']) => !/\bsrc=|application\/json/.test(a),
    );
    assert.deepEqual(inlineScripts, []);
  });
});
