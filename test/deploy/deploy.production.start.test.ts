/**
 * What deploy/install.sh leaves behind, started the way the systemd units start it: the server compiled to JavaScript
 * (server/dist), run by plain node with no TypeScript loader, PAYGATE_ENV=production and every secret read from a
 * `*_FILE`. The release sits in a directory of its own with no web/ and no openapi/ beside it, so the pages come from
 * the @paygate/web package and the contracts and API references from the @paygate/openapi package that Node resolves. (npm ci and the real build take minutes; this transpiles in a second
 * with esbuild, the compiler tsx itself uses, and deploy/install.sh's real run is recorded in OPERATIONS.md.)
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { newMnemonic } from '../../server/src/crypto/depositSeed.js';
import { sharedLocalChain } from '../helpers/chain.js';
import { repoRoot } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const START_MS = 60_000;

/** A release laid out from the sources: server/{bin,dist,package.json} and node_modules, nothing of the checkout. */
async function release(dir: string): Promise<string> {
  const src = join(repoRoot, 'server/src');
  const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(src, f));
  await build({
    entryPoints,
    outdir: join(dir, 'server/dist'),
    outbase: src,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  cpSync(join(src, 'chains/presets'), join(dir, 'server/dist/chains/presets'), { recursive: true });
  cpSync(join(repoRoot, 'server/bin'), join(dir, 'server/bin'), { recursive: true });
  cpSync(join(repoRoot, 'server/package.json'), join(dir, 'server/package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  return join(dir, 'server/bin/paygate.js');
}

/** Spawns a command of the release and resolves with its first stdout line (`--json` prints one when ready). */
async function startCommand(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  // Nothing of the test's own process: no NODE_OPTIONS (tsx), no development variables.
  const child = spawn(process.execPath, [bin, ...args, '--json'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args[0]}: no ready line in ${START_MS} ms\n${stderr}`)),
      START_MS,
    );
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const doc = JSON.parse(line) as Record<string, unknown>;
      if (typeof doc.level === 'number') return;
      clearTimeout(timer);
      resolve(doc);
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}\n${stderr}`)));
  });
  return { child, first };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill('SIGTERM');
  return (await exited)[0];
}

describe('deploy.production', function () {
  this.timeout(4 * START_MS);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-release-'));
  let test: TestDatabase;
  const children: ChildProcess[] = [];
  after(async () => {
    await Promise.all(children.map(stop));
    await test?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('paygate start and paygate worker run from server/dist with production env and every secret from a file', async () => {
    const bin = await release(join(dir, 'release'));
    test = await createTestDatabase('postgres');
    const local = await sharedLocalChain();
    const { relayerKey, rpcUrl, caip2, name, confirmations, assets } = local.config;
    const secrets = join(dir, 'secrets');
    mkdirSync(secrets, { mode: 0o700 });
    const secret = (file: string, value: string) => {
      writeFileSync(join(secrets, file), `${value}\n`, { mode: 0o600 });
      return join(secrets, file);
    };
    const metricsToken = randomBytes(24).toString('hex');
    const chainFile = join(dir, 'chains.json');
    const chain = { caip2, name, mode: 'test', confirmations, assets };
    writeFileSync(
      chainFile,
      JSON.stringify({ chains: [{ ...chain, rpcUrl: '${PAYGATE_RPC_LOCAL}', relayerKey: '${PAYGATE_RELAYER_KEY}' }] }),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      PAYGATE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      PUBLIC_BASE_URL: 'https://pay.example.test',
      PAYGATE_TRUST_PROXY: 'loopback',
      PAYGATE_DATA_DIR: join(dir, 'data'),
      PAYGATE_CHAINS: chainFile,
      PAYGATE_RPC_LOCAL: rpcUrl,
      LOG_LEVEL: 'warn',
      DATABASE_URL_FILE: secret('database-url', test.url),
      PAYGATE_ENCRYPTION_KEY_FILE: secret('encryption-key', `k1:${randomBytes(32).toString('base64')}`),
      PAYGATE_OPTION_SECRET_FILE: secret('option-secret', randomBytes(32).toString('base64')),
      PAYGATE_DEPOSIT_SEED_FILE: secret('deposit-seed', newMnemonic()),
      PAYGATE_RELAYER_KEY_FILE: secret('relayer-key', relayerKey!),
      METRICS_TOKEN_FILE: secret('metrics-token', metricsToken),
    };

    const api = await startCommand(bin, ['start'], env, dir);
    children.push(api.child);
    assert.equal(api.first.env, 'production');
    const url = String(api.first.url);
    const worker = await startCommand(bin, ['worker'], env, dir);
    children.push(worker.child);
    assert.equal(worker.first.worker, 'ready');

    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200, await ready.clone().text());
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');

    // The hosted checkout's page and its built script, from the resolved @paygate/web.
    const page = await fetch(`${url}/pay/pay_0000000000000000000000`);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    const script = /src="\/checkout\/assets\/([^"]+\.js)"/.exec(html);
    assert.ok(script, `the checkout page links its script:\n${html.slice(0, 400)}`);
    const asset = await fetch(`${url}/checkout/assets/${script[1]}`);
    assert.equal(asset.status, 200);

    // The API references from the resolved @paygate/openapi (the contracts the requests are checked against come from
    // there too: without them the process could not have started).
    const reference = await fetch(`${url}/docs/merchant`);
    assert.equal(reference.status, 200, await reference.clone().text());
    assert.match(await reference.text(), /redoc/i);

    // The metrics token came from its file: without it 401, with it the registry.
    assert.equal((await fetch(`${url}/metrics`)).status, 401);
    const metrics = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } });
    assert.equal(metrics.status, 200);

    assert.equal(await stop(worker.child), 0);
    assert.equal(await stop(api.child), 0);
  });
});
