/**
 * The deployment the rehearsal runs, laid out as an operator lays it out from deploy/: a release, /etc/paygate
 * (paygate.env from deploy/.env.example's variables, secrets/ one file per secret, chains.json with placeholders),
 * /var/lib/paygate, the units' processes, nginx in front with TLS, PostgreSQL, and the chains' endpoints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { getAddress } from 'viem';
import { newMnemonic } from '../../server/src/crypto/depositSeed.js';
import type { RehearsalContext } from './context.js';
import { Fleet } from './fleet.js';
import { freePort } from './net.js';
import { nginxConfig, startNginx, type Proxy } from './nginx.js';
import { startPostgres } from './postgres.js';
import { startReceiver, type Receiver } from './receiver.js';
import type { Tls } from './tls.js';
import { envFile } from './units.js';

export interface ChainsInfo {
  faucetUrl: string;
  evm: { entry: Record<string, unknown> & { rpcUrl: string; assets: { caip19: string }[] }; relayerKey: string };
  solana: {
    entry: Record<string, unknown> & { caip2: string; rpcUrl: string; assets: { caip19: string }[] };
    feePayerKey: string;
  };
}

export interface Deployment extends RehearsalContext {
  fleet: Fleet;
  proxy: Proxy;
  receiver: Receiver;
  chains: ChainsInfo;
  appId: string;
  paths: { etc: string; release: string };
  close(): Promise<void>;
}

/** The chains' process: anvil and the Solana RPC, described by one JSON line. */
export async function startChainsProcess(
  repo: string,
  logFile: string,
): Promise<{ info: ChainsInfo; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@paygate/source', join(repo, 'scripts/rehearsal/chains.ts')],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
  );
  child.stderr!.on('data', (d: Buffer) => appendFileSync(logFile, d));
  const info = await new Promise<ChainsInfo>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as ChainsInfo));
    child.once('exit', (code) => reject(new Error(`the chains process exited ${code}; see ${logFile}`)));
  });
  return { info, child };
}

export async function deploy(o: {
  repo: string;
  dir: string;
  release: string;
  tls: Tls;
  apis: number;
  workers: number;
  log: (line: string) => void;
}): Promise<Deployment> {
  const { dir, repo, tls } = o;
  const etc = join(dir, 'etc');
  const secrets = join(etc, 'secrets');
  const state = join(dir, 'var');
  const logs = join(dir, 'logs');
  for (const d of [etc, state, logs]) mkdirSync(d, { recursive: true });
  mkdirSync(secrets, { recursive: true, mode: 0o700 });
  const secret = (file: string, value: string) => writeFileSync(join(secrets, file), `${value}\n`, { mode: 0o600 });
  const cleanups: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    // The cluster and the chains do not need each other: started together, the run waits for the slower only.
    const [pgStarted, chainsStarted] = await Promise.allSettled([
      startPostgres(join(dir, 'pg'), randomBytes(12).toString('hex')),
      startChainsProcess(repo, join(logs, 'chains.log')),
    ]);
    if (pgStarted.status === 'fulfilled') cleanups.push(() => pgStarted.value.close());
    if (chainsStarted.status === 'fulfilled') cleanups.push(() => void chainsStarted.value.child.kill('SIGTERM'));
    if (pgStarted.status === 'rejected') throw pgStarted.reason;
    if (chainsStarted.status === 'rejected') throw chainsStarted.reason;
    const pg = pgStarted.value;
    const chains = chainsStarted.value;
    const info = chains.info;

    const metricsToken = randomBytes(24).toString('hex');
    secret('database-url', pg.url);
    secret('encryption-key', `k1:${randomBytes(32).toString('base64')}`);
    secret('option-secret', randomBytes(32).toString('base64'));
    // No rotation yet: the units load the file all the same, empty (OPERATIONS.md, rotating the option secret).
    secret('option-secret-previous', '');
    secret('deposit-seed', newMnemonic());
    secret('metrics-token', metricsToken);
    secret('relayer-key', info.evm.relayerKey);
    secret('solana-fee-payer-key', info.solana.feePayerKey);
    writeFileSync(
      join(etc, 'chains.json'),
      JSON.stringify({ chains: [info.evm.entry], solanaChains: [info.solana.entry] }, null, 2),
    );
    const ports = { http: await freePort(), https: await freePort() };
    const baseUrl = `https://127.0.0.1:${ports.https}`;
    // paygate.env: the variables of deploy/.env.example an operator sets (values for this machine), and the chain
    // file's secret placeholders as files. Paths are written as installed (/etc/paygate/…) and mapped like the units'.
    writeFileSync(
      join(etc, 'paygate.env'),
      [
        'PAYGATE_ENV=production',
        `PUBLIC_BASE_URL=${baseUrl}`,
        'PAYGATE_DATA_DIR=/var/lib/paygate',
        'PAYGATE_CHAINS=/etc/paygate/chains.json',
        'PAYGATE_RELAYER_KEY_FILE=/etc/paygate/secrets/relayer-key',
        'PAYGATE_SOLANA_FEE_PAYER_KEY_FILE=/etc/paygate/secrets/solana-fee-payer-key',
        'PAYGATE_TRUST_PROXY=loopback',
        // The merchant's receiver is on this machine, and signed by the operator's own CA.
        'PAYGATE_WEBHOOK_ALLOW_LOOPBACK=true',
        `NODE_EXTRA_CA_CERTS=${tls.ca}`,
        // Buyers and the merchant share one address here: no per-client limit may refuse the rehearsal's traffic.
        'PAYGATE_RATE_LIMIT_RPS=100000',
        'PAYGATE_RATE_LIMIT_BURST=100000',
        'LOG_LEVEL=warn',
        '',
      ].join('\n'),
    );
    const paths = { release: o.release, etc, state, credentials: join(dir, 'credentials'), node: process.execPath };
    // The operator's environment for commands (`paygate migrate`, `paygate admin …`): the env file and the secrets.
    const env: Record<string, string> = {
      ...Object.fromEntries(
        Object.entries(envFile(readFileSync(join(etc, 'paygate.env'), 'utf8'))).map(([k, v]) => [
          k,
          v.replaceAll('/etc/paygate', etc).replaceAll('/var/lib/paygate', state),
        ]),
      ),
      DATABASE_URL_FILE: join(secrets, 'database-url'),
      PAYGATE_ENCRYPTION_KEY_FILE: join(secrets, 'encryption-key'),
      PAYGATE_OPTION_SECRET_FILE: join(secrets, 'option-secret'),
      PAYGATE_OPTION_SECRET_PREVIOUS_FILE: join(secrets, 'option-secret-previous'),
      PAYGATE_DEPOSIT_SEED_FILE: join(secrets, 'deposit-seed'),
      METRICS_TOKEN_FILE: join(secrets, 'metrics-token'),
    };
    const commandLog = join(dir, 'commands.log');
    const run: RehearsalContext['run'] = (cmd, args, opts = {}) =>
      new Promise((resolve, reject) => {
        // A shell line (`sh -c '…'`) is logged as the operator types it, its variables unexpanded: no secret in the log.
        const shown = cmd === 'sh' && args[0] === '-c' ? args[1]! : [cmd, ...args].join(' ');
        appendFileSync(commandLog, `${shown}\n`);
        const [file, argv] =
          cmd === 'paygate'
            ? [process.execPath, [join(ctx.paths.release, 'server/bin/paygate.js'), ...args]]
            : [cmd, args];
        const child = spawn(file, argv, {
          cwd: ctx.paths.release,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env, ...opts.env },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.once('error', reject);
        child.once('exit', (code) => resolve({ stdout, stderr, code: code ?? -1 }));
        child.stdin.end(opts.input ?? '');
      });
    const json = async (args: string[]) => {
      const r = await run('paygate', [...args, '--json']);
      if (r.code !== 0) throw new Error(`paygate ${args.join(' ')}: ${r.code}\n${r.stderr}${r.stdout}`);
      return JSON.parse(r.stdout) as Record<string, string>;
    };

    const fleet = new Fleet(repo, paths, metricsToken, logs);
    const ctx = {
      dir,
      env,
      pg,
      baseUrl,
      ca: tls.ca,
      merchant: { apiKey: '', id: '' },
      run,
      fleet,
      chains: info,
      appId: '',
      paths: { etc, release: o.release },
      restartAll: async (extra: Record<string, string> = {}) => {
        for (const i of fleet.instances) await fleet.restart(i, extra);
      },
    } as unknown as Deployment;

    // An operator's first steps: the schema, then a partner, its merchant, keys, an app id, the webhook endpoint.
    await json(['migrate']);
    // The app id needs no partner: its command runs beside the partner's, each a process of its own.
    const app = json(['admin', 'create-app', '--mode', 'test', '--label', 'Rehearsal wallet']);
    app.catch(() => undefined);
    const partner = await json(['admin', 'create-partner', '--name', 'Rehearsal partner']);
    const settlementEvm = privateSettlement();
    const merchant = await json([
      'admin',
      'create-merchant',
      '--partner',
      partner.id!,
      '--name',
      'Rehearsal shop',
      '--settlement',
      `eip155:31337=${settlementEvm}`,
      '--settlement',
      `${info.solana.entry.caip2}=${await solanaSettlement()}`,
    ]);
    ctx.merchant = {
      id: merchant.id!,
      apiKey: (await json(['admin', 'create-api-key', '--partner', partner.id!, '--mode', 'test'])).key!,
    };
    ctx.appId = (await app).key!;

    for (let n = 0; n < o.apis; n++) fleet.add('paygate-api', `${await freePort()}`, 0);
    for (const i of fleet.apis) i.port = Number(i.instance);
    for (let n = 1; n <= o.workers; n++) fleet.add('paygate-worker', String(n), await freePort());
    cleanups.push(() => fleet.stopAll());
    await Promise.all(fleet.instances.map((i) => fleet.start(i)));
    o.log(`processes: ${fleet.instances.map((i) => `${i.unit}@${i.instance}`).join(', ')}`);

    const nginxDir = join(dir, 'nginx');
    mkdirSync(nginxDir, { recursive: true });
    const conf = nginxConfig(
      repo,
      nginxDir,
      tls,
      ports,
      fleet.apis.map((i) => i.port),
    );
    const proxy = await startNginx(conf, nginxDir, ports.https);
    cleanups.push(() => proxy.stop());
    const receiver = await startReceiver(tls);
    cleanups.push(() => receiver.close());
    const endpoint = await json([
      'admin',
      'webhook-endpoint',
      'create',
      '--merchant',
      ctx.merchant.id,
      '--mode',
      'test',
      '--url',
      receiver.url,
    ]);
    receiver.useSecret(endpoint.secret!);
    Object.assign(ctx, { proxy, receiver, close });
    return ctx;
  } catch (err) {
    await close();
    throw err;
  }
}

function privateSettlement(): string {
  // A fresh address of no one's: the merchant's funds only need to arrive somewhere that starts empty.
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}

async function solanaSettlement(): Promise<string> {
  const { generateKeyPairSigner } = await import('@solana/kit');
  return (await generateKeyPairSigner()).address;
}
