/**
 * Detection of deposits on Solana (chains/adapter.ts `DepositScan`, docs/decisions.md §22.5). A deposit owner
 * receives each of the chain's SPL mints at its associated token account (ATA): the scan lists each ATA's signatures
 * (`getSignaturesForAddress`, newest first, down to the cursor's slot), reads each new transaction once
 * (`getTransaction`, `json`) and keeps the token transfers into a watched ATA.
 *
 * The cursor is the next slot to scan, a decimal string, as EVM detection's next block: it fits `scan_cursors` and
 * does not depend on any one signature staying known to the node. Null scans each ATA from its beginning: a deposit
 * address exists before anyone can pay it, so its whole history is short and all of it matters.
 */
import type { Address, Signature } from '@solana/kit';
import type { DepositScan, OnChainState, SeenTransfer } from '../adapter.js';
import type { SolanaChain } from './client.js';
import { unknownSignature } from './landing.js';
import { tokenTransfersOf, type JsonLandedTransaction } from './tokenTransfers.js';
import { associatedTokenAccount } from './transfer.js';

/** Signatures per `getSignaturesForAddress` page: a deposit ATA's whole history fits one. */
const PAGE = 100;
/** RPC calls in flight at once per scan, so a scan of many addresses does not flood a provider. */
const PARALLEL = 8;
export { SOLANA_LANDING_WINDOW_SLOTS } from './landing.js';

interface Watched {
  owner: string;
  asset: string;
  mint: Address;
}

async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}

function slotOf(cursor: string | null): bigint {
  if (cursor === null) return 0n;
  if (!/^\d{1,20}$/.test(cursor)) throw new Error(`${cursor} is not a Solana scan cursor (a slot)`);
  return BigInt(cursor);
}

/** The successful transactions that touched `ata` in slots from..until (exclusive), newest first. */
async function signaturesOf(chain: SolanaChain, ata: Address, from: bigint, until: bigint) {
  const found: { signature: Signature; slot: bigint }[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await chain.rpc
      .getSignaturesForAddress(ata, { commitment: 'confirmed', limit: PAGE, ...(before ? { before } : {}) })
      .send();
    for (const entry of page) {
      if (entry.slot < from) return found;
      // Failed transactions moved nothing; the next scan reads the ones from `until` on.
      if (entry.slot < until && entry.err === null) found.push({ signature: entry.signature, slot: entry.slot });
    }
    if (page.length < PAGE) return found;
    before = page[page.length - 1]!.signature;
  }
}

export function solanaDepositScan(chains: SolanaChain[]): DepositScan {
  const chainOf = (caip2: string): SolanaChain => {
    const chain = chains.find((c) => c.config.caip2 === caip2);
    if (!chain) throw new Error(`${caip2} is not a configured Solana chain`);
    return chain;
  };

  async function watchedAccounts(chain: SolanaChain, owners: string[]): Promise<Map<string, Watched>> {
    // Deposits are SPL tokens only: a SOL deposit would sit in the owner's system account, which rent rules and
    // sweeps treat differently (docs/decisions.md §22.5).
    const pairs = chain.config.assets.flatMap((asset) =>
      asset.mint === null ? [] : owners.map((owner) => ({ owner, asset: asset.caip19, mint: asset.mint! })),
    );
    const atas = await Promise.all(pairs.map((p) => associatedTokenAccount(p.owner as Address, p.mint)));
    return new Map(atas.map((ata, i) => [ata, pairs[i]!]));
  }

  return {
    async scan(caip2, addresses, cursor) {
      const chain = chainOf(caip2);
      const from = slotOf(cursor);
      // Read before the listings, and the scan stops short of it: every slot below the newest confirmed one is
      // complete and visible to them, while a node may still be adding to the newest (the local chain lands
      // transactions in its current slot), so the next scan starts at it and neither misses nor repeats one.
      const until = await chain.rpc.getSlot({ commitment: 'confirmed' }).send();
      const watched = await watchedAccounts(chain, addresses);
      // Each signature's place in chain order: its slot, then its place in its account's listing (newest first).
      const signatures = new Map<Signature, { slot: bigint; rank: number }>();
      await inBatches([...watched.keys()], PARALLEL, async (ata) => {
        const listed = await signaturesOf(chain, ata as Address, from, until);
        listed.forEach(({ signature, slot }, i) => signatures.set(signature, { slot, rank: listed.length - i }));
      });
      const transfers: SeenTransfer[] = [];
      await inBatches([...signatures.keys()], PARALLEL, async (signature) => {
        const landed = await chain.rpc
          .getTransaction(signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 })
          .send();
        // Listed but unreadable (a node behind its own index): fail the scan, so the cursor stays and it is read again.
        if (!landed) throw new Error(`${caip2}: transaction ${signature} is listed but not readable yet`);
        for (const transfer of tokenTransfersOf(landed as unknown as JsonLandedTransaction)) {
          const to = watched.get(transfer.destination);
          if (!to || (transfer.mint !== null && transfer.mint !== to.mint)) continue;
          transfers.push({
            chain: caip2,
            asset: to.asset,
            address: to.owner,
            txId: signature,
            position: transfer.position,
            from: transfer.sourceOwner,
            amount: transfer.amount,
            blockNumber: landed.slot,
            blockHash: null,
            blockTime: landed.blockTime === null ? null : Number(landed.blockTime),
          });
        }
      });
      // In chain order, whatever order the reads answered in.
      transfers.sort((a, b) => {
        const [x, y] = [signatures.get(a.txId as Signature)!, signatures.get(b.txId as Signature)!];
        if (x.slot !== y.slot) return x.slot < y.slot ? -1 : 1;
        return x.rank - y.rank || a.position - b.position;
      });
      return { transfers, cursor: String(until > from ? until : from) };
    },

    async status(transfer): Promise<OnChainState> {
      const chain = chainOf(transfer.chain);
      const [status] = (
        await chain.rpc.getSignatureStatuses([transfer.txId as Signature], { searchTransactionHistory: true }).send()
      ).value;
      if (status && status.err !== null) return 'gone';
      // Seen at `confirmed` and now unknown to every in-sync endpoint (the pool asks them all, §27.4): a node that has
      // not seen it, or one behind its slot, answers the same as an abandoned block would. It is gone only once the
      // finalized chain is past the slots in which it could still land (§27.22); until then nobody can tell.
      if (!status) return unknownSignature(chain, transfer.blockNumber);
      if (status.confirmationStatus === 'finalized') return 'final';
      if (status.confirmationStatus === 'confirmed' && chain.config.commitment === 'confirmed') return 'confirmed';
      return 'pending';
    },
  };
}
