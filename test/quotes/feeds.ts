/**
 * TestPriceFeed on the run's shared local chain: deploys feeds from the faucet account and writes their rounds, for
 * tests that drive the Chainlink provider against a real chain. Call inside tests isolated by useChainSnapshots().
 */
import { getAddress, type Address } from 'viem';
import { TestPriceFeed } from '@paygate/devchain';
import type { PriceFeedConfig } from '../../server/src/chains/chainsSetting.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import type { PricingChain } from '../../server/src/quotes/index.js';

export interface TestFeed {
  address: Address;
  /** Writes round `roundId` and makes it the latest. Times are Unix seconds. */
  setRound(round: {
    roundId: bigint;
    answer: bigint;
    startedAt: bigint;
    updatedAt: bigint;
    answeredInRound: bigint;
  }): Promise<void>;
  /** Writes the next round, complete and answered in itself, updated at `updatedAt`. */
  setAnswer(answer: bigint, updatedAt: bigint): Promise<void>;
}

export async function deployFeed(chain: LocalEvmChain, decimals: number, description: string): Promise<TestFeed> {
  const { faucet, clients } = chain;
  const mined = async (hash: `0x${string}`) => {
    const receipt = await clients.public.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const deployed = await mined(
    await faucet.deployContract({
      abi: TestPriceFeed.abi,
      bytecode: TestPriceFeed.bytecode,
      args: [decimals, description],
    }),
  );
  const address = getAddress(deployed.contractAddress!);
  const write = async (functionName: 'setRound' | 'setAnswer', args: readonly bigint[]) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one writer for both setters' argument tuples
    await mined(await faucet.writeContract({ address, abi: TestPriceFeed.abi, functionName, args: args as any }));
  };
  return {
    address,
    setRound: (r) => write('setRound', [r.roundId, r.answer, r.startedAt, r.updatedAt, r.answeredInRound]),
    setAnswer: (answer, updatedAt) => write('setAnswer', [answer, updatedAt]),
  };
}

/** The local chain as pricing sees it, with these feeds (pair → feed) instead of the static table. */
export function chainWithFeeds(
  chain: LocalEvmChain,
  feeds: Record<string, { feed: TestFeed; heartbeatS: number }>,
  sequencer: TestFeed | null = null,
): PricingChain {
  const priceFeeds: Record<string, PriceFeedConfig> = Object.fromEntries(
    Object.entries(feeds).map(([pair, { feed, heartbeatS }]) => [pair, { address: feed.address, heartbeatS }]),
  );
  return {
    config: { ...chain.config, priceFeeds, sequencerUptimeFeed: sequencer?.address ?? null },
    clients: chain.clients,
  };
}

/** Unix seconds of a time in milliseconds, as feeds and the Chainlink checks count. */
export function seconds(ms: number): bigint {
  return BigInt(Math.floor(ms / 1000));
}
