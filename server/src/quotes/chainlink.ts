/**
 * Chainlink price feeds (AggregatorV3Interface) read on-chain, and the checks a round must pass before a price is
 * quoted from it. A round that fails one is refused, never used "for now": a stale price quoted with a fresh
 * expiry would let a buyer pay yesterday's rate.
 */
import type { Address, Chain, PublicClient, Transport } from 'viem';

/** The part of AggregatorV3Interface that is read. Written here, not imported, so no third-party source is vendored. */
export const aggregatorV3Abi = [
  {
    type: 'function',
    name: 'decimals',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ name: '', type: 'uint8' }],
  },
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
] as const;

export interface FeedRound {
  decimals: number;
  roundId: bigint;
  answer: bigint;
  startedAt: bigint;
  updatedAt: bigint;
  answeredInRound: bigint;
}

export type FeedClient = PublicClient<Transport, Chain>;

/** The feed's latest round and its decimals, in one Multicall3 call (one round trip, one block). */
export async function readFeed(client: FeedClient, address: Address): Promise<FeedRound> {
  const [decimals, [roundId, answer, startedAt, updatedAt, answeredInRound]] = await client.multicall({
    allowFailure: false,
    contracts: [
      { address, abi: aggregatorV3Abi, functionName: 'decimals' },
      { address, abi: aggregatorV3Abi, functionName: 'latestRoundData' },
    ],
  });
  return { decimals, roundId, answer, startedAt, updatedAt, answeredInRound };
}

/** Why a price round cannot be quoted from at `nowS` (Unix seconds), or null when it can. */
export function refusePriceRound(round: FeedRound, heartbeatS: number, nowS: bigint): string | null {
  if (round.answer <= 0n) return `its answer ${round.answer} is not a price`;
  if (round.updatedAt === 0n) return `round ${round.roundId} is not complete (updatedAt 0)`;
  if (round.answeredInRound < round.roundId) {
    return `round ${round.roundId} carries the answer of the earlier round ${round.answeredInRound}`;
  }
  const age = nowS - round.updatedAt;
  if (age > BigInt(heartbeatS)) return `its latest round is ${age} s old, older than its heartbeat of ${heartbeatS} s`;
  return null;
}

/**
 * Why the prices of an L2 cannot be trusted at `nowS` according to its sequencer uptime feed, or null when they can.
 * The feed answers 0 while the sequencer is up and 1 while it is down; `startedAt` is when that status began. After
 * an outage, feeds may still hold prices from before it until their next update, hence the grace period.
 */
export function refuseSequencer(round: FeedRound, graceS: number, nowS: bigint): string | null {
  if (round.answer === 1n) return 'the sequencer is down';
  if (round.answer !== 0n) return `the sequencer uptime feed answers ${round.answer}, neither 0 (up) nor 1 (down)`;
  if (round.startedAt === 0n) return 'the sequencer uptime feed has no valid round (startedAt 0)';
  const up = nowS - round.startedAt;
  if (up < BigInt(graceS)) return `the sequencer came back up ${up} s ago, within the ${graceS} s grace period`;
  return null;
}

export interface CachedRound {
  round: FeedRound;
  /** Milliseconds since the epoch, by the caller's clock, when the round was read from the chain. */
  readAt: number;
}

/**
 * Reads feeds through a short cache, so listing many options (and many buyers listing at once) costs one read per
 * feed every `cacheMs`. Reads in flight are shared. A failed read is not kept. An entry only spares the RPC call:
 * the caller checks the round against its own `now` every time, and dates the quote from `readAt`.
 */
export function createFeedReader(cacheMs: number) {
  const entries = new Map<string, { readAt: number; value: Promise<FeedRound> }>();
  return {
    read(chainKey: string, client: FeedClient, address: Address, now: number): Promise<CachedRound> {
      const key = `${chainKey}:${address}`;
      let entry = entries.get(key);
      // A clock that moved back (now < readAt) cannot tell the entry's age: read again.
      if (!entry || now < entry.readAt || now - entry.readAt >= cacheMs) {
        const fresh = { readAt: now, value: readFeed(client, address) };
        entries.set(key, fresh);
        fresh.value.catch(() => {
          if (entries.get(key) === fresh) entries.delete(key);
        });
        entry = fresh;
      }
      const { readAt, value } = entry;
      return value.then((round) => ({ round, readAt }));
    },
  };
}

export type FeedReader = ReturnType<typeof createFeedReader>;
