/**
 * The server finds its web pages through the @paygate/web package, the way Node resolves any dependency, so a server
 * installed without a checkout beside it (server/dist alone, or under node_modules) still serves them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_WEB_DIST, webDistFrom } from '../../server/src/http/webPages.js';
import { repoRoot } from '../helpers/cli.js';

const manifest = (path: string) => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as unknown;

describe('deploy.webAssets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-web-resolve-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves the web pages from the @paygate/web installed beside the server, not from a checkout path', () => {
    // The layout of an install from packages: node_modules/@paygate/{server,web}, no web/ anywhere near.
    const web = join(dir, 'node_modules/@paygate/web');
    mkdirSync(join(web, 'dist'), { recursive: true });
    writeFileSync(join(web, 'package.json'), readFileSync(join(repoRoot, 'web/package.json')));
    const serverModule = join(dir, 'node_modules/@paygate/server/dist/http/webPages.js');
    mkdirSync(join(serverModule, '..'), { recursive: true });
    assert.equal(webDistFrom(pathToFileURL(serverModule)), join(web, 'dist'));
  });

  it('the default is the workspace package’s dist, which holds every page the server serves', () => {
    assert.equal(realpathSync(DEFAULT_WEB_DIST), realpathSync(join(repoRoot, 'web/dist')));
    for (const page of ['checkout.html', 'collect.html', 'dashboard.html', 'refund.html', 'pos.html']) {
      assert.ok(readFileSync(join(DEFAULT_WEB_DIST, page), 'utf8').includes('<html'), page);
    }
  });

  it('the server depends on @paygate/web, which exports its package.json and ships dist', () => {
    const server = manifest('server/package.json') as { dependencies: Record<string, string> };
    const web = manifest('web/package.json') as { exports: Record<string, string>; files: string[] };
    assert.equal(server.dependencies['@paygate/web'], '0.1.0');
    assert.equal(web.exports['./package.json'], './package.json');
    assert.ok(web.files.includes('dist'));
  });
});
