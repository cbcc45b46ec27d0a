/**
 * The local EVM chain of `PAYGATE_CHAINS=local`: anvil from npm (`@foundry-rs/anvil`), started on a free loopback
 * port, with Paygate Test USD (TUSD) and Multicall3 deployed on it. Every account and key here is anvil's public
 * test mnemonic ("test test … junk"): anyone can spend from them, which is the point on a local chain and the
 * reason they must never be used anywhere else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CANONICAL_MULTICALL3, type EvmChainConfig } from './config.js';
import { Multicall3, TestUSD } from './eip155/artifacts.generated.js';
import { createEvmClients, type ClientOptions, type EvmClients } from './eip155/client.js';

export const LOCAL_CHAIN_ID = 31337;
export const LOCAL_CAIP2 = `eip155:${LOCAL_CHAIN_ID}` as const;
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * anvil's default accounts (#0–#2 of the public test mnemonic). #0 deploys TUSD, so it is TUSD's minter and the
 * faucet; #1 receives the demo merchant's payouts (accounts/bootstrap.ts); #2 is the local relayer.
 */
export const ANVIL_KEYS = {
  faucet: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  settlement: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  relayer: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
} as const satisfies Record<string, Hex>;

/** Blocks are mined on each transaction, so polling faster than that only costs loopback round trips. */
const LOCAL_POLLING_MS = 50;
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

export interface LocalEvmChain {
  config: EvmChainConfig;
  clients: EvmClients;
  /** Signs as anvil account #0, TUSD's minter. */
  faucet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  /** anvil's own methods (snapshots, mining, balances), for tests and tools. */
  test: TestClient<'anvil', Transport, Chain>;
  testUsd: Address;
  /** Stops anvil; the chain's state is gone (it lives in anvil's memory only). */
  stop(): Promise<void>;
}

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
const [bin, ...args] = JSON.parse(process.argv[1]);
const anvil = spawn(bin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => anvil.kill('SIGTERM');
process.stdin.on('end', stop).on('error', stop).resume();
process.on('SIGTERM', stop);
anvil.on('error', (err) => { console.error(String(err)); process.exit(127); });
anvil.on('exit', (code) => process.exit(code ?? 0));
`;

interface AnvilProcess {
  url: string;
  stop(): Promise<void>;
}

async function spawnAnvil(): Promise<AnvilProcess> {
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--chain-id',
    String(LOCAL_CHAIN_ID),
    '--mnemonic',
    ANVIL_MNEMONIC,
  ];
  const child: ChildProcess = spawn(process.execPath, ['-e', WATCHDOG, JSON.stringify([anvilBinary(), ...args])], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
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
  return { url, stop };
}

/** The local chain's entry in the chain configuration, as the gateway and the dev routes see it. */
export function localChainConfig(rpcUrl: string, testUsd: Address | null): EvmChainConfig {
  const networkName = 'Local chain (anvil)';
  const native = {
    caip19: `${LOCAL_CAIP2}/slip44:60`,
    address: null,
    decimals: 18,
    symbol: 'ETH',
    name: 'Ether',
    iconUrl: null,
    networkIconUrl: null,
    networkName,
    eip3009: false,
    peg: null,
  };
  const tusd = testUsd && {
    caip19: `${LOCAL_CAIP2}/erc20:${testUsd}`,
    address: testUsd,
    decimals: 6,
    symbol: 'TUSD',
    name: 'Paygate Test USD',
    iconUrl: null,
    networkIconUrl: null,
    networkName,
    eip3009: true,
    peg: 'USD',
  };
  return {
    caip2: LOCAL_CAIP2,
    namespace: 'eip155',
    chainId: LOCAL_CHAIN_ID,
    name: 'Local',
    mode: 'test',
    rpcUrl,
    explorerTxUrl: null,
    // Wallets in the browser tests (and a developer's own) can add the local chain from the checkout.
    publicRpcUrl: rpcUrl,
    // anvil mines one block per transaction and never reorganises.
    confirmations: 1,
    relayerKey: ANVIL_KEYS.relayer,
    multicall3: CANONICAL_MULTICALL3,
    assets: tusd ? [native, tusd] : [native],
    // Test mode without feeds: priced from the static table (server/src/quotes/staticRates.ts).
    priceFeeds: {},
    sequencerUptimeFeed: null,
  };
}

/**
 * Starts anvil and deploys the local contracts: TUSD from account #0 (a fresh chain, so always at the same address,
 * 0x5FbDB2315678afecb367f032d93F642f64180aa3) and Multicall3's code at its canonical address.
 */
export async function startLocalEvmChain(options: Pick<ClientOptions, 'observer'> = {}): Promise<LocalEvmChain> {
  const anvil = await spawnAnvil();
  try {
    // The clients depend on the chain's id, RPC URL and native coin only, so they serve before TUSD exists too.
    const clients = createEvmClients(localChainConfig(anvil.url, null), {
      ...options,
      pollingIntervalMs: LOCAL_POLLING_MS,
    });
    const transport = http(anvil.url);
    const { chain } = clients;
    const faucet = createWalletClient({
      chain,
      transport,
      account: privateKeyToAccount(ANVIL_KEYS.faucet),
      pollingInterval: LOCAL_POLLING_MS,
    });
    const test = createTestClient({ chain, transport, mode: 'anvil', pollingInterval: LOCAL_POLLING_MS });
    await test.setCode({ address: CANONICAL_MULTICALL3, bytecode: Multicall3.deployedBytecode });
    const hash = await faucet.deployContract({ abi: TestUSD.abi, bytecode: TestUSD.bytecode });
    const receipt = await clients.public.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deploying TestUSD failed');
    const testUsd = getAddress(receipt.contractAddress);
    return {
      config: localChainConfig(anvil.url, testUsd),
      clients,
      faucet,
      test,
      testUsd,
      stop: anvil.stop,
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
