/**
 * The server the README's screenshots are taken of: `paygate start` itself (server/src/cli.ts through tsx, so the
 * current sources), in development on a fresh SQLite file in a temporary data directory, with the local chains it
 * starts (anvil and the LiteSVM Solana RPC). Its first JSON line is the demo merchant's test credentials and the
 * dashboard's demo login, as a new user sees them; the second says where it listens.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

export interface Credentials {
  merchantId: string;
  merchantApiKey: string;
  walletApiKey: string;
  dashboard: { email: string; password: string };
}

export interface Paygate {
  url: string;
  credentials: Credentials;
  /** A merchant API call with the demo merchant's test key; throws unless the status is `expect`. */
  merchant<T>(method: string, path: string, body?: unknown, expect?: number): Promise<T>;
  /** A gateway call with the demo wallet key, as a wallet's backend makes it. */
  gateway<T>(path: string): Promise<T>;
  /** Sends `amount` minor units of `asset` from the local chain's faucet to `account` (CAIP-10), confirmed. */
  faucet(account: string, asset: string, amount: string): Promise<void>;
  /** `paygate admin …` on the same database, as an operator types it. */
  admin(...args: string[]): void;
  close(): Promise<void>;
}

const TSX = 'node_modules/.bin/tsx';
const CLI = 'server/src/cli.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPaygate(dataDir: string): Promise<Paygate> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PAYGATE_ENV: 'development',
    PORT: String(port),
    PUBLIC_BASE_URL: url,
    PAYGATE_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  // The data directory's SQLite file, never a database the caller's shell points at.
  delete env.DATABASE_URL;
  const child: ChildProcess = spawn(TSX, [CLI, 'start', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  let credentials: Credentials | null = null;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`paygate start exited with ${code}`)));
    lines.on('line', (line) => {
      let json: Partial<Credentials> & { url?: string };
      try {
        json = JSON.parse(line) as typeof json;
      } catch {
        return;
      }
      if (json.merchantId) credentials = json as Credentials;
      if (json.url) resolve();
    });
  });
  if (!credentials) throw new Error('paygate start printed no demo credentials: is the data directory empty?');
  const creds: Credentials = credentials;

  async function call<T>(method: string, path: string, headers: Record<string, string>, body?: unknown, expect = 200) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  return {
    url,
    credentials: creds,
    merchant: (method, path, body, expect) =>
      call(method, path, { 'Api-Key': creds.merchantApiKey, 'Merchant-Id': creds.merchantId }, body, expect),
    gateway: (path) => call('GET', path, { 'Api-Key': creds.walletApiKey }),
    async faucet(account, asset, amount) {
      await call('POST', '/v1/dev/faucet', {}, { account, asset, amount });
    },
    admin(...args) {
      const run = spawnSync(TSX, [CLI, 'admin', ...args], { env, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`paygate admin ${args.join(' ')}: ${run.stderr}`);
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `check` every 250 ms until it holds, for at most `ms`; a script's wait, not a test's. */
export async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
