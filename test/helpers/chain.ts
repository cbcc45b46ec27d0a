/**
 * One local chain (anvil, with TUSD and Multicall3) per mocha run: started on first use, so runs that need no chain
 * never start one, and stopped by the global teardown in test/setup.ts. Tests that change the chain isolate
 * themselves with `useChainSnapshots()` instead of starting chains of their own.
 */
import { createServer } from 'node:net';
import type { Hex } from 'viem';
import { startChains, type Chains } from '../../server/src/chains/index.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';

let started: Promise<Chains> | null = null;

/** The run's chains, as `createRuntime({ chains })` takes them. */
export function sharedChains(): Promise<Chains> {
  started ??= startChains({ chains: 'local', chainEnv: {} });
  return started;
}

export async function sharedLocalChain(): Promise<LocalEvmChain> {
  return (await sharedChains()).local!.evm;
}

export async function stopSharedChains(): Promise<void> {
  const chains = await started?.catch(() => null);
  started = null;
  await chains?.close();
}

/**
 * Registers hooks that take an `evm_snapshot` before each test and revert to it after, so every test of the suite
 * starts from the chain as it was: balances, nonces, authorizations and blocks.
 */
export function useChainSnapshots(): void {
  let snapshot: Hex | null = null;
  beforeEach(async () => {
    snapshot = await (await sharedLocalChain()).test.snapshot();
  });
  afterEach(async () => {
    if (snapshot === null) return;
    const id = snapshot;
    snapshot = null;
    await (await sharedLocalChain()).test.revert({ id });
  });
}

/** A loopback URL where nothing listens, for real connection failures (never canned answers). */
export async function deadRpcUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
