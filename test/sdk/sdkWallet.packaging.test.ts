/**
 * The package as a consumer gets it: `npm pack` the SDK and the client core it depends on (their prepack builds
 * dist), install the tarballs into a fresh project (npm installs the @solana/kit peer), compile the README's examples and a file using every export with tsc
 * (strict, NodeNext, no skipLibCheck) once with Node's types and once with only the DOM's, check that the runtime
 * files use no Node.js-only API, and run a script against a real server with node, under both the default and the
 * `browser` export conditions. None of this is seen by the rest of the suite, which runs the sources.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startWalletHarness, type WalletHarness } from './walletHelpers.js';

const run = promisify(execFile);
const repo = new URL('../../', import.meta.url).pathname;
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
/** The consumer's own files: the screens the README imports, a file using every export, a script. */
const fixtures = new URL('./consumer-wallet/', import.meta.url).pathname;

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

describe('sdkWallet.packaging', function () {
  // Packing builds the package; installing resolves openapi-fetch, @solana/kit and @types/node through npm's cache.
  this.timeout(180_000);

  let dir: string;
  let h: WalletHarness;
  let sdkFiles: string[];
  let coreFiles: string[];
  const consumer = () => join(dir, 'consumer');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-sdk-wallet-'));
    // In order: the SDK's build resolves the core's types from its dist.
    const core = await npmPack('client-core', dir);
    coreFiles = core.files;
    const sdk = await npmPack('sdk-wallet', dir);
    sdkFiles = sdk.files;
    mkdirSync(consumer());
    writeFileSync(
      join(consumer(), 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
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
        sdk.filename,
        `@types/node@${typesNode}`,
      ],
      { cwd: consumer(), env: consumerEnv() },
    );
    h = await startWalletHarness({ config: { PUBLIC_BASE_URL: 'https://pay.example.com' } });
  });

  after(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

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
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/gateway.js']) {
      assert.ok(sdkFiles.includes(file), file);
    }
    assert.deepEqual(
      sdkFiles.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md'),
      [],
    );
  });

  it('the client core is a regular dependency, packed with its built entry point, its types and the README only', () => {
    const pkg = JSON.parse(readFileSync(join(consumer(), 'node_modules/@paygate/sdk-wallet/package.json'), 'utf8'));
    assert.ok(pkg.dependencies['@paygate/client-core']);
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) {
      assert.ok(coreFiles.includes(file), file);
    }
    assert.deepEqual(
      coreFiles.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md'),
      [],
    );
  });

  it('npm installs the @solana/kit peer once, at the consumer’s top level', () => {
    const pkg = JSON.parse(readFileSync(join(consumer(), 'node_modules/@paygate/sdk-wallet/package.json'), 'utf8'));
    assert.ok(pkg.peerDependencies['@solana/kit']);
    assert.equal(pkg.dependencies['@solana/kit'], undefined);
    assert.ok(existsSync(join(consumer(), 'node_modules/@solana/kit/package.json')));
    assert.equal(existsSync(join(consumer(), 'node_modules/@paygate/sdk-wallet/node_modules/@solana/kit')), false);
  });

  it('the runtime files use no Node.js-only API (no node: modules, no Buffer, no process)', () => {
    // The SDK's own files, and the core's, which run in the same page.
    const files = sdkFiles.filter((f) => f.endsWith('.js'));
    assert.ok(files.length >= 8);
    const runtime = [
      ...files.map((f) => `sdk-wallet/${f}`),
      ...coreFiles.filter((f) => f.endsWith('.js')).map((f) => `client-core/${f}`),
    ];
    for (const file of runtime) {
      const code = readFileSync(join(consumer(), 'node_modules/@paygate', file), 'utf8')
        // The code, not its comments.
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      assert.doesNotMatch(code, /from ['"]node:|import\(['"]node:|\brequire\(/, file);
      assert.doesNotMatch(code, /\bBuffer\b/, file);
      // Only detectPlatform reads `process`, as a property of globalThis when it exists.
      assert.doesNotMatch(code, /(^|[^.\w])process\b/m, file);
    }
  });

  it('the README’s examples and a file using every export compile against the installed package, with Node’s types and with only the DOM’s', async () => {
    const blocks = readmeBlocks(readFileSync(join(repo, 'sdk-wallet/README.md'), 'utf8'));
    assert.ok(blocks.length >= 6, `found ${blocks.length} blocks`);
    for (const required of ['paygate.ts', 'checkout.ts']) {
      assert.ok(
        blocks.some((b) => b.file === required),
        required,
      );
    }
    for (const block of blocks) writeFileSync(join(consumer(), block.file), block.code);
    for (const file of ['ui.ts', 'every-export.ts']) copyFileSync(join(fixtures, file), join(consumer(), file));
    const files = [...blocks.map((b) => b.file), 'ui.ts', 'every-export.ts'];
    // @solana/kit's declarations name Web Crypto's CryptoKey, which only the DOM lib declares (the README says so).
    await compile(
      { compilerOptions: { ...strict, lib: ['ES2022', 'DOM'], types: ['node'] }, files },
      'tsconfig.node.json',
    );
    await compile(
      { compilerOptions: { ...strict, lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] }, files },
      'tsconfig.dom.json',
    );
  });

  for (const conditions of [[], ['--conditions=browser']]) {
    it(`node imports the package through its exports map, and it works against a real server${conditions.length ? ' (browser builds of its dependencies)' : ''}`, async () => {
      copyFileSync(join(fixtures, 'smoke.mjs'), join(consumer(), 'smoke.mjs'));
      const { gatewayUrl } = await h.createPayment({ value: '990' });
      const { stdout } = await run(process.execPath, [...conditions, 'smoke.mjs'], {
        cwd: consumer(),
        env: consumerEnv({
          PAYGATE_URL: h.server.url,
          PAYGATE_APP_ID: h.credentials.testApp,
          PAYGATE_LINK: gatewayUrl,
        }),
      });
      const result = JSON.parse(stdout) as Record<string, unknown>;
      assert.deepEqual(result.exports, [
        'DEFAULT_MAX_POLL_MS',
        'DEFAULT_POLL_MS',
        'DEFAULT_RETRY',
        'MAX_RETRY_AFTER_MS',
        'PayError',
        'PaygateError',
        'PaygateWallet',
        'SDK_NAME',
        'SDK_VERSION',
        'SUPPORTED_METHODS',
        'SVC_VERSION',
        'buildActionItemTypeValues',
        'collectDataFieldTypeValues',
        'collectDataOf',
        'createGatewayClient',
        'detectPlatform',
        'errorCodeValues',
        'isPaymentId',
        'parsePaymentLink',
        'paymentStatusValues',
        'performWalletRpc',
        'walletRpcActionItemTypeValues',
      ]);
      assert.deepEqual(result.info, ['requires_action', '990']);
      assert.deepEqual(result.status, {
        status: 'requires_action',
        isFinal: false,
        pollInMs: 2000,
        info: null,
        failureCode: null,
      });
      const cancelled = result.cancelled as { paymentId: string; cancelledAt: string };
      assert.deepEqual(cancelled, {
        status: 'cancelled',
        isFinal: true,
        pollInMs: null,
        info: null,
        failureCode: null,
        paymentId: cancelled.paymentId,
        cancelledReason: 'cancelled_by_user',
        cancelledAt: cancelled.cancelledAt,
      });
      assert.deepEqual(result.notFound, [true, 'payment_not_found', 404]);
      assert.deepEqual(result.badLink, [true, 'invalid_payment_link']);
      assert.equal(result.signed, true);
    });
  }
});
