/**
 * A production install of the server carries no dev chain: anvil, LiteSVM and tsx reach it only through the dev
 * package @paygate/devchain, which the server loads on demand for PAYGATE_CHAINS=local, and which never imports the
 * server back.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = new URL('../../', import.meta.url).pathname;

interface NpmTree {
  dependencies?: Record<string, NpmTree>;
}

/** Every package name in npm's tree, at any depth. */
function names(tree: NpmTree, into = new Set<string>()): Set<string> {
  for (const [name, sub] of Object.entries(tree.dependencies ?? {})) {
    into.add(name);
    names(sub, into);
  }
  return into;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('server.dependencies.production', function () {
  // npm reads the whole lockfile and tree: seconds on a loaded machine.
  this.timeout(180_000);

  it('npm ls --omit=dev of @paygate/server lists neither litesvm, @foundry-rs/anvil nor tsx', async () => {
    const args = ['ls', '--omit=dev', '--all', '--json', '-w', '@paygate/server'];
    // npm ls exits non-zero for problems elsewhere in the tree (an extraneous package) but still prints the tree.
    const stdout = await run('npm', args, { cwd: repo, maxBuffer: 64 * 1024 * 1024 }).then(
      (r) => r.stdout,
      (err: { stdout?: string }) => err.stdout ?? '',
    );
    const tree = JSON.parse(stdout) as NpmTree;
    const server = tree.dependencies?.['@paygate/server'];
    assert.ok(server, 'npm ls shows @paygate/server');
    const production = names(server);
    assert.ok(production.has('viem'), 'the tree holds the runtime dependencies');
    for (const dev of ['litesvm', '@foundry-rs/anvil', 'tsx', '@paygate/devchain']) {
      assert.equal(production.has(dev), false, `${dev} is in the server's production dependencies`);
    }
  });

  it('the dev package imports nothing from the server', () => {
    const offenders = sourceFiles(join(repo, 'devchain/src')).filter((file) =>
      /from '(@paygate\/server|[./]*\/server\/)/.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });
});
