/**
 * anvil from npm (`@foundry-rs/anvil`) on a free loopback port, under a watchdog so that no chain outlives the process
 * that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/** The anvil binary that npm installed for this platform (an optional dependency of @foundry-rs/anvil). */
export function anvilBinary(): string {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  const platform = ['linux', 'darwin', 'win32'].includes(process.platform) ? process.platform : undefined;
  const pkg = `@foundry-rs/anvil-${platform}-${arch}`;
  const require = createRequire(import.meta.url);
  try {
    // Resolved from @foundry-rs/anvil, whose optional dependency the platform package is.
    const from = require.resolve('@foundry-rs/anvil/package.json');
    return createRequire(from).resolve(`${pkg}/bin/anvil${process.platform === 'win32' ? '.exe' : ''}`);
  } catch {
    throw new Error(
      `anvil is not installed for ${process.platform}-${process.arch} (npm package ${pkg}); ` +
        'run npm install, or set PAYGATE_CHAINS to a chain configuration file',
    );
  }
}

/**
 * Runs anvil under a small Node watchdog that holds a pipe from us on its stdin: when this process dies, even by
 * SIGKILL, the pipe closes and the watchdog stops anvil, so no orphaned chain outlives its server. The watchdog has
 * its own process group, so a terminal's Ctrl+C reaches only the server, whose shutdown stops the chain last.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const [cacheDir, bin, ...args] = JSON.parse(process.argv[1]);
const anvil = spawn(bin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => anvil.kill('SIGTERM');
const clean = () => rmSync(cacheDir, { recursive: true, force: true });
process.stdin.on('end', stop).on('error', stop).resume();
process.on('SIGTERM', stop);
anvil.on('error', (err) => { console.error(String(err)); clean(); process.exit(127); });
anvil.on('exit', (code) => { clean(); process.exit(code ?? 0); });
`;

export interface AnvilProcess {
  url: string;
  /** Where anvil keeps the states it moves out of memory; removed when anvil exits. */
  cacheDir: string;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId: number;
  mnemonic: string;
  /**
   * Also mine an empty block every this many milliseconds (anvil's `--block-time` with `--mixed-mining`: transactions
   * are still mined at once). Without it anvil mines only on a transaction.
   */
  blockTimeMs?: number;
}

export async function spawnAnvil(options: AnvilOptions): Promise<AnvilProcess> {
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--chain-id',
    String(options.chainId),
    '--mnemonic',
    options.mnemonic,
  ];
  if (options.blockTimeMs !== undefined) {
    if (!Number.isInteger(options.blockTimeMs) || options.blockTimeMs <= 0) {
      throw new Error(`the local chain's block time must be a positive number of milliseconds`);
    }
    args.push('--block-time', String(options.blockTimeMs / 1000), '--mixed-mining');
  }
  // anvil writes the states it no longer holds in memory under ~/.foundry/anvil/tmp and never removes them: a
  // directory per run, hundreds of MB each after a test suite. Its own directory here, removed by the watchdog when
  // anvil exits, however its parent ended.
  const cacheDir = mkdtempSync(join(tmpdir(), 'paygate-anvil-'));
  args.push('--cache-path', cacheDir);
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', WATCHDOG, JSON.stringify([cacheDir, anvilBinary(), ...args])],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    },
  );
  // Writing nothing, the pipe can only fail when the watchdog is already gone, which `exited` reports.
  child.stdin!.on('error', () => undefined);
  // The watchdog leads its own process group (detached), so killing the group takes anvil with it.
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Kept for the error message when anvil fails to start; afterwards its per-request log is read and dropped.
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null, value = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err === null) return resolve(value);
      killGroup();
      reject(new Error(`${err.message}\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(
      () => settle(new Error(`anvil did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Listening on (\S+:\d+)/.exec(output);
      if (match) settle(null, `http://${match[1]}`);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (err) => settle(err));
    void exited.then((code) => settle(new Error(`anvil exited with code ${String(code)} before listening`)));
  });
  child.stdout!.removeAllListeners('data').resume();
  child.stderr!.removeAllListeners('data').resume();

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // Closing the pipe is the watchdog's signal to stop anvil; the group kill is for a watchdog that hangs.
      child.stdin!.end();
      const timer = setTimeout(killGroup, STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    })());
  return { url, cacheDir, stop };
}
