/**
 * The local EVM chain's faucet: mints TUSD or sends ether from anvil account #0, and answers once the transaction is
 * mined, so a test wallet can pay with the funds at once.
 */
import { createPublicClient, createWalletClient, http, maxUint256, parseEther, type Address, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { FaucetRefusal } from '../refusal.js';
import { TestUSD } from './artifacts.generated.js';
import { ANVIL_KEYS, LOCAL_POLLING_MS, localViemChain } from './identity.js';

/** Funding a token also tops the account's ether up to this, so a fresh wallet can pay gas for its payment. */
export const GAS_TOP_UP = parseEther('1');
/** Ether the faucet keeps for its own gas: a request that would leave less is refused. */
const FAUCET_RESERVE = parseEther('1');

export interface EvmFaucet {
  /** Sends `wei` to `to`; refuses (FaucetRefusal) what would leave the faucet less than its own gas. */
  sendEther(to: Address, wei: bigint): Promise<Hash>;
  /** Mints TUSD to `to`, topping its ether up to GAS_TOP_UP first; refuses an amount that overflows the supply. */
  mintTestUsd(to: Address, amount: bigint): Promise<Hash>;
}

/** The faucet of the anvil chain at `rpcUrl`, whose TUSD is at `testUsd`. */
export function evmFaucet(rpcUrl: string, testUsd: Address): EvmFaucet {
  const chain = localViemChain(rpcUrl);
  const transport = http(rpcUrl);
  const pollingInterval = LOCAL_POLLING_MS;
  const client = createPublicClient({ chain, transport, pollingInterval });
  const account = privateKeyToAccount(ANVIL_KEYS.faucet);
  const wallet = createWalletClient({ chain, transport, account, pollingInterval });
  // One faucet transaction at a time: each one takes the next nonce of the same account.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const mined = async (hash: Hash): Promise<Hash> => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`faucet transaction ${hash} reverted`);
    return hash;
  };

  const sendEther = async (to: Address, value: bigint): Promise<Hash> => {
    const available = await client.getBalance({ address: wallet.account.address });
    if (value > available - FAUCET_RESERVE) {
      throw new FaucetRefusal(`The faucet can send at most ${available - FAUCET_RESERVE} wei; ask for less.`);
    }
    return mined(await wallet.sendTransaction({ to, value }));
  };

  const mintTestUsd = async (to: Address, amount: bigint): Promise<Hash> => {
    const supply = await client.readContract({ address: testUsd, abi: TestUSD.abi, functionName: 'totalSupply' });
    if (amount > maxUint256 - supply) {
      throw new FaucetRefusal('The amount would overflow the token supply; ask for less.');
    }
    const ether = await client.getBalance({ address: to });
    if (ether < GAS_TOP_UP) await sendEther(to, GAS_TOP_UP - ether);
    return mined(
      await wallet.writeContract({ address: testUsd, abi: TestUSD.abi, functionName: 'mint', args: [to, amount] }),
    );
  };

  return {
    sendEther: (to, wei) => serially(() => sendEther(to, wei)),
    mintTestUsd: (to, amount) => serially(() => mintTestUsd(to, amount)),
  };
}
