/** The local EVM chain: anvil with Paygate Test USD (TUSD) and Multicall3 deployed on it. */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  type Address,
  type Hash,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { spawnAnvil } from './anvil.js';
import { Multicall3, TestUSD } from './artifacts.generated.js';
import { evmFaucet, type EvmFaucet } from './faucet.js';
import {
  ANVIL_KEYS,
  ANVIL_MNEMONIC,
  CANONICAL_MULTICALL3,
  LOCAL_CAIP2,
  LOCAL_CHAIN_ID,
  LOCAL_POLLING_MS,
  localViemChain,
} from './identity.js';

/** Plain data and functions only: the server loads this package on demand and builds its own clients from it. */
export interface AnvilChain {
  chainId: typeof LOCAL_CHAIN_ID;
  caip2: typeof LOCAL_CAIP2;
  rpcUrl: string;
  testUsd: Address;
  multicall3: Address;
  keys: typeof ANVIL_KEYS;
  faucet: EvmFaucet;
  /** Stops anvil; the chain's state is gone (it lives in anvil's memory only). */
  stop(): Promise<void>;
}

export interface AnvilChainOptions {
  /**
   * Mine an empty block this often (ms) besides the blocks of transactions, so that the chain's `finalized` block
   * (64 behind the head) advances without traffic; off by default: tests mine the blocks they need.
   */
  blockTimeMs?: number;
}

/**
 * Starts anvil and deploys the local contracts: TUSD from account #0 (a fresh chain, so always at the same address,
 * 0x5FbDB2315678afecb367f032d93F642f64180aa3) and Multicall3's code at its canonical address.
 */
export async function startAnvilChain(options: AnvilChainOptions = {}): Promise<AnvilChain> {
  const anvil = await spawnAnvil({ chainId: LOCAL_CHAIN_ID, mnemonic: ANVIL_MNEMONIC, ...options });
  try {
    const chain = localViemChain(anvil.url);
    const transport = http(anvil.url);
    const pollingInterval = LOCAL_POLLING_MS;
    const client = createPublicClient({ chain, transport, pollingInterval });
    const wallet = createWalletClient({
      chain,
      transport,
      account: privateKeyToAccount(ANVIL_KEYS.faucet),
      pollingInterval,
    });
    const test = createTestClient({ chain, transport, mode: 'anvil', pollingInterval });
    await test.setCode({ address: CANONICAL_MULTICALL3, bytecode: Multicall3.deployedBytecode });
    const hash: Hash = await wallet.deployContract({ abi: TestUSD.abi, bytecode: TestUSD.bytecode });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error('deploying TestUSD failed');
    const testUsd = getAddress(receipt.contractAddress);
    return {
      chainId: LOCAL_CHAIN_ID,
      caip2: LOCAL_CAIP2,
      rpcUrl: anvil.url,
      testUsd,
      multicall3: CANONICAL_MULTICALL3,
      keys: ANVIL_KEYS,
      faucet: evmFaucet(anvil.url, testUsd),
      stop: anvil.stop,
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
