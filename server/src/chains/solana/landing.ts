/**
 * When a Solana signature nobody knows is gone (docs/decisions.md §27.22, §27.30): one rule for deposit detection
 * (depositScan.ts `status`) and direct settlement (adapter.ts `finality`). A null signature status on every in-sync
 * endpoint (the pool asks them all, §27.4) is what a node that has not seen the transaction, one behind its slot and
 * an abandoned fork all answer; only the last is a loss, and on Solana only the blockhash's expiry makes it final.
 */
import type { SolanaChain } from './client.js';

/**
 * Slots past the one a transaction was seen in after which, if no endpoint knows its signature, it can never land:
 * its blockhash lives 150 blocks, and twice that in slots leaves room for skipped slots.
 */
export const SOLANA_LANDING_WINDOW_SLOTS = 300n;

/**
 * Whether a signature that every in-sync endpoint answers null for, seen landed in `seenSlot`, can no longer land
 * (`gone`) or nobody can tell yet (`unknown`). Without a slot there is nothing to wait for: `gone`, as before the rule.
 */
export async function unknownSignature(chain: SolanaChain, seenSlot: bigint | null): Promise<'gone' | 'unknown'> {
  if (seenSlot === null) return 'gone';
  // The best finalized slot among the in-sync endpoints: a lagging node's older one is never asked (§27.4).
  const finalized = await chain.rpc.getSlot({ commitment: 'finalized' }).send();
  return finalized > seenSlot + SOLANA_LANDING_WINDOW_SLOTS ? 'gone' : 'unknown';
}

/** The slot a claim's transaction was seen landed in (`landedSlot`, written by the watch at success), if stored. */
export function landedSlotOf(details: Record<string, unknown> | undefined): bigint | null {
  const slot = details?.landedSlot;
  return typeof slot === 'string' && /^\d{1,20}$/.test(slot) ? BigInt(slot) : null;
}
