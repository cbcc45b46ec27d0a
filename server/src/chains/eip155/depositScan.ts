/**
 * Detection of deposits on EVM chains (chains/adapter.ts `DepositScan`, docs/decisions.md §22.3): the `Transfer` logs
 * of the chain's deposit assets (EIP-3009 tokens, the only ones collected mode can sweep without gas) whose `to` is a
 * deposit address, read with `eth_getLogs` by block range from a cursor, the next block to scan.
 */
import {
  getAddress,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Log,
  type TransactionReceipt,
} from 'viem';
import type { DepositScan, OnChainState, SeenTransfer } from '../adapter.js';
import type { Chains, EvmChain } from '../index.js';
import { erc20Abi } from './abis.js';

export interface EvmDepositScanOptions {
  /** Blocks per `eth_getLogs` call: providers cap a range (Alchemy, Infura and public nodes at 2,000 to 10,000). */
  maxRange?: number;
  /** Deposit addresses per filter (an OR of `topics[2]`): providers cap a filter's size too. */
  addressBatch?: number;
}

export const DEFAULT_MAX_RANGE = 2_000;
export const DEFAULT_ADDRESS_BATCH = 500;

const transferEvent = erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!;

type TransferLog = Log<bigint, number, false, typeof transferEvent>;

/** The chain's deposit assets: EIP-3009 tokens. */
function depositTokens(chain: EvmChain): { caip19: string; address: Address }[] {
  return chain.config.assets.flatMap((a) => (a.eip3009 && a.address ? [{ caip19: a.caip19, address: a.address }] : []));
}

async function receiptOrNull(chain: EvmChain, hash: Hash): Promise<TransactionReceipt | null> {
  try {
    return await chain.clients.public.getTransactionReceipt({ hash });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/**
 * Whether the canonical chain now holds another block at `number` than `hash` (docs/decisions.md §27.17): the only
 * evidence that a counted transfer was reorganised out. Null when no endpoint answers the block (one lagging behind
 * it, or failing): nothing is known, and the transfer stays as it was until a later scan.
 */
async function replacedAt(chain: EvmChain, number: bigint | null, hash: string | null): Promise<boolean | null> {
  if (number === null || hash === null) return null;
  try {
    return (await chain.clients.public.getBlock({ blockNumber: number })).hash !== hash;
  } catch {
    return null;
  }
}

/** The chain's `finalized` block number, or null on a chain (or node) without the tag. */
async function finalizedBlock(chain: EvmChain): Promise<bigint | null> {
  try {
    return (await chain.clients.public.getBlock({ blockTag: 'finalized' })).number;
  } catch {
    return null;
  }
}

/**
 * How long the head and the finalized block read for one status serve the next: detection asks for many at once after
 * each scan (and a scan starts them afresh).
 */
const HEADS_TTL_MS = 250;

/**
 * The chain's head and finalized block, read once per `HEADS_TTL_MS`: a slightly old head only makes a transfer
 * look shallower than it is, so it waits one scan longer, never the reverse.
 */
function headsReader() {
  const cached = new Map<string, { at: number; heads: Promise<{ latest: bigint; finalized: bigint | null }> }>();
  const read = (chain: EvmChain): Promise<{ latest: bigint; finalized: bigint | null }> => {
    const found = cached.get(chain.config.caip2);
    if (found && performance.now() - found.at < HEADS_TTL_MS) return found.heads;
    const heads = (async () => {
      // Finalized first: read after the head, it could be newer than it, never older.
      const finalized = await finalizedBlock(chain);
      const latest = await chain.clients.public.getBlockNumber({ cacheTime: 0 });
      return { latest, finalized };
    })();
    cached.set(chain.config.caip2, { at: performance.now(), heads });
    heads.catch(() => cached.delete(chain.config.caip2));
    return heads;
  };
  return { read, forget: (caip2: string) => cached.delete(caip2) };
}

function scannedChain(chains: Chains, caip2: string): EvmChain {
  const chain = chains.evm.find((c) => c.config.caip2 === caip2);
  if (!chain) throw new Error(`${caip2} is not a configured EVM chain`);
  return chain;
}

export function evmDepositScan(chains: Chains, options: EvmDepositScanOptions = {}): DepositScan {
  const maxRange = BigInt(options.maxRange ?? DEFAULT_MAX_RANGE);
  const addressBatch = options.addressBatch ?? DEFAULT_ADDRESS_BATCH;
  if (maxRange < 1n || addressBatch < 1) throw new Error('maxRange and addressBatch must be at least 1');
  const heads = headsReader();

  return {
    async scan(caip2, addresses, cursor) {
      const chain = scannedChain(chains, caip2);
      heads.forget(caip2);
      const client = chain.clients.public;
      const latest = await client.getBlockNumber({ cacheTime: 0 });
      // A reorg shallower than the required confirmations may replace blocks already scanned with blocks holding
      // transfers never seen: the last `confirmations - 1` blocks below the cursor are read again (keyed, harmless).
      const overlap = BigInt(chain.config.confirmations - 1);
      let from = cursor === null ? latest : BigInt(cursor) - overlap;
      if (from < 0n) from = 0n;
      const next = (latest + 1n).toString();
      const tokens = depositTokens(chain);
      if (addresses.length === 0 || tokens.length === 0 || from > latest) {
        return { transfers: [], cursor: cursor !== null && BigInt(cursor) > latest ? cursor : next };
      }
      const owners = [...new Set(addresses.map((a) => getAddress(a)))];
      const assetOf = new Map(tokens.map((t) => [t.address, t.caip19]));
      const logs: TransferLog[] = [];
      for (let start = from; start <= latest; start += maxRange) {
        const end = start + maxRange - 1n < latest ? start + maxRange - 1n : latest;
        for (let i = 0; i < owners.length; i += addressBatch) {
          const found = await client.getLogs({
            address: tokens.map((t) => t.address),
            event: transferEvent,
            args: { to: owners.slice(i, i + addressBatch) },
            fromBlock: start,
            toBlock: end,
            strict: true,
          });
          logs.push(...(found as TransferLog[]));
        }
      }
      // One block read per block that holds a deposit: its time decides whether a transfer paid before expiresAt.
      const times = new Map<Hash, number>();
      for (const log of logs) {
        if (log.blockHash === null || times.has(log.blockHash)) continue;
        const block = await client.getBlock({ blockHash: log.blockHash });
        times.set(log.blockHash, Number(block.timestamp));
      }
      const transfers: SeenTransfer[] = logs
        .filter((l) => !l.removed && l.transactionHash !== null && l.logIndex !== null)
        .map((l) => {
          // strict: every log answered has all three arguments decoded.
          const args = l.args as { from: Address; to: Address; value: bigint };
          return {
            chain: caip2,
            asset: assetOf.get(getAddress(l.address))!,
            address: getAddress(args.to),
            txId: l.transactionHash!,
            position: l.logIndex!,
            from: getAddress(args.from),
            amount: args.value,
            blockNumber: l.blockNumber,
            blockHash: l.blockHash,
            blockTime: l.blockHash === null ? null : (times.get(l.blockHash) ?? null),
          };
        });
      return { transfers, cursor: next };
    },

    // The head block itself: a transfer to an address given out after this read is mined in it or later.
    async cursorNow(caip2) {
      return (await scannedChain(chains, caip2).clients.public.getBlockNumber({ cacheTime: 0 })).toString();
    },

    async status(transfer): Promise<OnChainState> {
      const chain = scannedChain(chains, transfer.chain);
      const receipt = await receiptOrNull(chain, transfer.txId as Hash);
      // Missing, failed, or in another block: a node that has not seen the transaction or lags behind its block
      // answers the same as a reorganisation, so only another block at the transfer's height says it is gone
      // (mined again elsewhere, the scan finds it anew at its new block and log index).
      if (!receipt || receipt.status !== 'success' || receipt.blockHash !== transfer.blockHash) {
        return (await replacedAt(chain, transfer.blockNumber, transfer.blockHash)) === true ? 'gone' : 'unknown';
      }
      const replaced = await replacedAt(chain, receipt.blockNumber, receipt.blockHash);
      if (replaced !== false) return replaced ? 'gone' : 'unknown';
      const { latest, finalized } = await heads.read(chain);
      if (finalized !== null && finalized >= receipt.blockNumber) return 'final';
      const depth = latest - receipt.blockNumber + 1n;
      if (depth < BigInt(chain.config.confirmations)) return 'pending';
      // Without the tag, the chain's configured depth is its finality (docs/decisions.md §22).
      return finalized === null ? 'final' : 'confirmed';
    },
  };
}
