/**
 * The server finds the bundled contracts it validates requests against, and the API references it serves at /docs,
 * through the @paygate/openapi package, the way Node resolves any dependency: a server installed without a checkout
 * beside it (server/dist alone, or under node_modules) still has both. deploy.production.start.test.ts starts such a
 * release; this file holds the resolution and the packages' manifests.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_DOCS_DIR, openapiPackageFrom } from '../../server/src/http/openapi.js';
import { repoRoot } from '../helpers/cli.js';

const manifest = (path: string) => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as unknown;

describe('deploy.apiContracts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-openapi-resolve-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves the contracts from the @paygate/openapi installed beside the server, not from a checkout path', () => {
    // The layout of an install from packages: node_modules/@paygate/{server,openapi}, no openapi/ anywhere near.
    const openapi = join(dir, 'node_modules/@paygate/openapi');
    mkdirSync(openapi, { recursive: true });
    writeFileSync(join(openapi, 'package.json'), readFileSync(join(repoRoot, 'openapi/package.json')));
    const serverModule = join(dir, 'node_modules/@paygate/server/dist/http/openapi.js');
    mkdirSync(join(serverModule, '..'), { recursive: true });
    assert.equal(openapiPackageFrom(pathToFileURL(serverModule)), openapi);
  });

  it('the default is the workspace package, whose dist/docs holds the references the server serves', () => {
    assert.equal(realpathSync(join(DEFAULT_DOCS_DIR, '../..')), realpathSync(join(repoRoot, 'openapi')));
    for (const api of ['gateway', 'merchant', 'dev', 'dashboard', 'ops']) {
      assert.ok(readFileSync(join(DEFAULT_DOCS_DIR, `${api}.html`), 'utf8').includes('<html'), api);
    }
  });

  it('the server depends on @paygate/openapi, which exports its package.json and ships bundled and dist', () => {
    const server = manifest('server/package.json') as { dependencies: Record<string, string> };
    const openapi = manifest('openapi/package.json') as { exports: Record<string, string>; files: string[] };
    assert.equal(server.dependencies['@paygate/openapi'], '0.1.0');
    assert.equal(openapi.exports['./package.json'], './package.json');
    assert.deepEqual([...openapi.files].sort(), ['bundled', 'dist']);
  });
});
