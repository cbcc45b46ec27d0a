/**
 * Finality of a landed EVM transaction (direct settlement, docs/decisions.md §22.1): final once its block is at or
 * below the chain's `finalized` block and is still the canonical block at its height. A chain whose node knows no
 * `finalized` tag counts its configured confirmations instead.
 */
import { RpcRequestError, TransactionReceiptNotFoundError, type Hex } from 'viem';
import type { Finality } from '../adapter.js';
import type { EvmChain } from '../index.js';

/** The number of the newest block the chain will not revert. */
async function finalizedBlock(chain: EvmChain): Promise<bigint> {
  const client = chain.clients.public;
  try {
    return (await client.getBlock({ blockTag: 'finalized' })).number;
  } catch (err) {
    // Only the node's refusal of the tag falls back; a transport failure is a failure.
    if (!(err instanceof RpcRequestError) && !hasRpcCode(err)) throw err;
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    return latest - BigInt(chain.config.confirmations) + 1n;
  }
}

function hasRpcCode(err: unknown): boolean {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return typeof (err as { code?: unknown } | null)?.code === 'number' || (cause !== undefined && hasRpcCode(cause));
}

export async function evmFinality(chain: EvmChain, txId: string): Promise<Finality> {
  const client = chain.clients.public;
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: txId as Hex });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return 'gone';
    throw err;
  }
  if (receipt.status !== 'success') return 'gone';
  const final = await finalizedBlock(chain);
  // Read after the finalized block, so a reorg between the two reads shows as a changed hash, never as final.
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  if (block.hash !== receipt.blockHash) return 'pending';
  return receipt.blockNumber <= final ? 'final' : 'pending';
}
