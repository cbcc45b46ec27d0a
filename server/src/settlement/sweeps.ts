/**
 * Sweeps (docs/decisions.md §22.4): the funds received at deposit addresses, once final, are moved to the collection
 * account, several deposits in one move (one leg each) per chain and asset. Planning writes the sweep row, the
 * transfers it covers and its job in one transaction, and nothing else; the executor (moves.ts) moves the funds.
 */
import type { Knex } from 'knex';
import { isUniqueViolation } from '../db/failure.js';
import { insertSweep, unsweptTransfers, type UnsweptTransfer } from '../db/queries/sweepRows.js';
import { newId } from '../ids.js';
import { forNamespaceOf } from '../chains/adapters.js';
import { enqueueMove, type MoveDeps } from './moves.js';

/** Legs per sweep: one transaction must stay well inside a block's gas limit (~40 k gas a leg). */
export const SWEEP_MAX_LEGS = 50;

/** Plans a sweep of every final, received, unswept deposit transfer; answers the new sweeps' ids. */
export async function planSweeps(deps: MoveDeps): Promise<string[]> {
  const transfers = (await unsweptTransfers(deps.db.knex)).filter(
    (t) => forNamespaceOf(deps.adapters, t.chain)?.settlement?.mover !== undefined,
  );
  const groups = new Map<string, UnsweptTransfer[][]>();
  for (const t of transfers) {
    const key = `${t.chain} ${t.asset}`;
    const batches = groups.get(key) ?? [];
    groups.set(key, batches);
    // A deposit's transfers stay in one batch, so each address is one leg of one sweep.
    let batch = batches.find((b) => b.some((x) => x.address === t.address));
    if (!batch) {
      batch = batches.find((b) => new Set(b.map((x) => x.address)).size < SWEEP_MAX_LEGS);
      if (!batch) batches.push((batch = []));
    }
    batch.push(t);
  }
  const planned: string[] = [];
  for (const batches of groups.values()) {
    for (const batch of batches) {
      const id = await planOne(deps, batch);
      if (id) planned.push(id);
    }
  }
  return planned;
}

async function planOne(deps: MoveDeps, batch: UnsweptTransfer[]): Promise<string | null> {
  const { chain, asset } = batch[0]!;
  const settlement = forNamespaceOf(deps.adapters, chain)!.settlement!;
  const collection = await settlement.keyAddress(chain, { role: 'collection' });
  const id = newId.sweep();
  try {
    await deps.db.knex.transaction(async (trx: Knex.Transaction) => {
      await insertSweep(trx, {
        id,
        chain,
        asset,
        // The row names its first leg's deposit; every leg is in sweep_transfers.
        fromAddress: batch[0]!.address,
        toAddress: collection,
        amount: batch.reduce((sum, t) => sum + t.amount, 0n),
        createdAt: deps.now(),
        transfers: batch,
      });
      await enqueueMove(trx, deps.jobs, 'sweep', id);
    });
  } catch (err) {
    // Another process planned some of these transfers first: they are swept by its plan.
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  return id;
}
