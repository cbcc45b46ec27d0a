/**
 * The package as a consumer gets it: `npm pack` the SDK and its two packages from this repository, the client core
 * and the verifier (their prepack builds dist), install the tarballs into a fresh project, compile the README's examples and a file using every export with tsc (strict,
 * NodeNext, no skipLibCheck), and run a script against a real server with node. This checks the `exports` map, the
 * emitted types and the runtime files, none of which the rest of the suite sees (it runs the sources).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApp, type Runtime } from '@paygate/server';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { testRuntime } from '../helpers/runtime.js';

const run = promisify(execFile);
const repo = new URL('../../', import.meta.url).pathname;
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
/** The consumer's own files: the order store the README imports, a file using every export, a script. */
const fixtures = new URL('./consumer/', import.meta.url).pathname;

/** The environment of a consumer's machine: none of this repository's loader flags or source conditions. */
function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
  return env;
}

async function npmPack(packageDir: string, destination: string): Promise<{ filename: string; files: string[] }> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: join(repo, packageDir),
    env: consumerEnv(),
  });
  // Lifecycle output (prepack's build) can precede the JSON on stdout.
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1 || stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  return { filename: join(destination, packed!.filename), files: packed!.files.map((f) => f.path) };
}

/** The README's ```ts blocks; a block whose first line is `// name.ts` is that file, as the README presents it. */
function readmeBlocks(markdown: string): { file: string; code: string }[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, i) => {
    const code = match[1]!;
    const named = /^\/\/ ([\w.-]+\.ts)\n/.exec(code);
    return { file: named ? named[1]! : `readme_${i + 1}.ts`, code };
  });
}

describe('sdkMerchant.packaging', function () {
  // Packing builds both packages; installing resolves openapi-fetch and @types/node through npm's cache.
  this.timeout(180_000);

  let dir: string;
  let runtime: Runtime;
  let server: Listening;
  let account: MerchantAccount;
  let sdkFiles: string[];
  let coreFiles: string[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-sdk-merchant-'));
    // In order: the SDK's build resolves the core's and the verifier's types from their dist.
    const core = await npmPack('client-core', dir);
    coreFiles = core.files;
    const verifier = await npmPack('webhook-verifier', dir);
    const sdk = await npmPack('sdk-merchant', dir);
    sdkFiles = sdk.files;
    const consumer = join(dir, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The repository's own @types/node version, which npm's cache already holds after the repository's install.
    const typesNode = JSON.parse(readFileSync(join(repo, 'node_modules/@types/node/package.json'), 'utf8')).version;
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        core.filename,
        verifier.filename,
        sdk.filename,
        `@types/node@${typesNode}`,
      ],
      { cwd: consumer, env: consumerEnv() },
    );

    runtime = await testRuntime();
    server = await listen(createApp({ runtime, validateResponses: true }));
    account = await createMerchantAccount(runtime);
  });

  after(async () => {
    await server?.close();
    await runtime?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const consumer = () => join(dir, 'consumer');

  const compile = async (tsconfig: object, name: string) => {
    writeFileSync(join(consumer(), name), JSON.stringify(tsconfig));
    try {
      await run(process.execPath, [tsc, '-p', name], { cwd: consumer(), env: consumerEnv() });
    } catch (error) {
      const { stdout, stderr } = error as { stdout: string; stderr: string };
      assert.fail(`tsc -p ${name} failed:\n${stdout}${stderr}`);
    }
  };

  const strict = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: false,
    noEmit: true,
  };

  it('the tarball holds the built entry point, its types and the README, and no sources', () => {
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) {
      assert.ok(sdkFiles.includes(file), file);
    }
    assert.deepEqual(
      sdkFiles.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md'),
      [],
    );
  });

  it('the client core is a regular dependency, packed with its built entry point, its types and the README only', () => {
    const pkg = JSON.parse(readFileSync(join(consumer(), 'node_modules/@paygate/sdk-merchant/package.json'), 'utf8'));
    assert.ok(pkg.dependencies['@paygate/client-core']);
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) {
      assert.ok(coreFiles.includes(file), file);
    }
    assert.deepEqual(
      coreFiles.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md'),
      [],
    );
  });

  it('the README’s TypeScript examples and a file using every export compile against the installed package', async () => {
    const blocks = readmeBlocks(readFileSync(join(repo, 'sdk-merchant/README.md'), 'utf8'));
    assert.ok(blocks.length >= 8, `found ${blocks.length} blocks`);
    for (const required of ['paygate.ts', 'checkout.ts', 'webhooks.ts']) {
      assert.ok(
        blocks.some((b) => b.file === required),
        required,
      );
    }
    for (const block of blocks) writeFileSync(join(consumer(), block.file), block.code);
    for (const file of ['orders.ts', 'every-export.ts']) copyFileSync(join(fixtures, file), join(consumer(), file));
    await compile(
      {
        compilerOptions: { ...strict, lib: ['ES2022'], types: ['node'] },
        files: [...blocks.map((b) => b.file), 'orders.ts', 'every-export.ts'],
      },
      'tsconfig.node.json',
    );
  });

  it('the types need no Node.js types: every export compiles with only the DOM’s', async () => {
    copyFileSync(join(fixtures, 'every-export.ts'), join(consumer(), 'every-export.ts'));
    await compile(
      { compilerOptions: { ...strict, lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] }, files: ['every-export.ts'] },
      'tsconfig.dom.json',
    );
  });

  it('node imports the package through its exports map, and it works against a real server', async () => {
    copyFileSync(join(fixtures, 'smoke.mjs'), join(consumer(), 'smoke.mjs'));
    const { stdout } = await run(process.execPath, ['smoke.mjs'], {
      cwd: consumer(),
      env: consumerEnv({
        PAYGATE_URL: server.url,
        PAYGATE_API_KEY: account.testKey,
        PAYGATE_MERCHANT_ID: account.merchantId,
      }),
    });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    assert.deepEqual(result.exports, [
      'DEFAULT_POLL_MS',
      'DEFAULT_RETRY',
      'EventProcessor',
      'MAX_RETRY_AFTER_MS',
      'PaygateError',
      'PaygateMerchant',
      'SDK_VERSION',
      'Webhook',
      'WebhookVerificationError',
      'createMerchantClient',
      'errorCodeValues',
      'memoryStore',
      'merchantPaymentStatusValues',
      'paymentStatusValues',
      'simulatePaymentRequestToValues',
      'sqlStore',
      'sqlStoreSchema',
      'webhookEventTypeValues',
    ]);
    assert.deepEqual(result.final, { status: 'succeeded', isFinal: true, pollInMs: null });
    assert.deepEqual(result.notFound, [true, 'payment_not_found', 404]);
    assert.deepEqual(result.outcomes, ['processed', 'duplicate', 'processed', 'duplicate']);
    assert.equal(result.fulfilled, 1);
  });
});
