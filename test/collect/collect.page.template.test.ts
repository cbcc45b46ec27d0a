/**
 * The form page as web/ builds it: one document that loads nothing, whose inline script and style are the ones the
 * server hashes for its CSP (a hash of anything else would leave the page without its script).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WEB_DIST, webPageTemplate } from '../../server/src/http/webPages.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('collect.page template', () => {
  it('hashes the inline scripts and styles, not a script with src nor the config block', () => {
    const dir = mkdtempSync(join(tmpdir(), 'collect-page-'));
    writeFileSync(
      join(dir, 'page.html'),
      `<!doctype html><html lang="en"><head><script type="module">run()</script><style>p{}</style>` +
        `<script type="module" src="/x.js"></script></head><body><!--paygate-config--></body></html>`,
    );
    const page = webPageTemplate(join(dir, 'page.html'))()!;
    assert.deepEqual(page.inline, { scripts: [sha256('run()')], styles: [sha256('p{}')] });
    const html = page.render({ error: { code: 'payment_not_found', message: '</script>' } });
    assert.match(
      html,
      /<script type="application\/json" id="paygate-config">\{"error":.*\\u003c\/script>"\}\}<\/script>/,
    );
    assert.deepEqual(webPageTemplate(join(dir, 'page.html'))()!.inline, page.inline, 'rendering adds no source');
  });

  it('the built page has one script and one style, both inline, and loads nothing', () => {
    const page = webPageTemplate(join(DEFAULT_WEB_DIST, 'collect.html'))();
    assert.ok(page, 'web/ is built by the test setup');
    assert.equal(page.inline.scripts.length, 1);
    assert.equal(page.inline.styles.length, 1);
    const html = page.render({ schema: {} });
    assert.ok(!/\b(src|href)=/.test(html));
  });
});
