/**
 * Reorganisations on the run's anvil: `anvil_reorg(depth, [[tx, blockOffset], …])` replaces the last `depth` blocks
 * with as many new ones and puts each listed transaction (raw signed bytes, so the same hash) into the new block at
 * its offset; what is not listed is gone from the chain, as a transaction dropped by a real reorganisation is.
 */
import type { Hash, Hex, PublicClient } from 'viem';

export async function anvilReorg(client: PublicClient, depth: number, txs: [Hex, number][]): Promise<void> {
  await client.request({ method: 'anvil_reorg', params: [depth, txs] } as never);
}

/** The signed bytes of a mined transaction, to put it back into a reorganised chain unchanged. */
export async function rawTransaction(client: PublicClient, hash: Hash): Promise<Hex> {
  return (await client.request({ method: 'eth_getRawTransactionByHash', params: [hash] } as never)) as Hex;
}

/** Whether the canonical chain holds the transaction now: a check of absence after a reorganisation, not a wait. */
export async function onCanonicalChain(client: PublicClient, hash: Hash): Promise<boolean> {
  return (await client.request({ method: 'eth_getTransactionReceipt', params: [hash] } as never)) !== null;
}
