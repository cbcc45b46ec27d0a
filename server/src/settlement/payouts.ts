/**
 * Payouts (docs/decisions.md §22.4): on a schedule, per merchant × mode × chain × asset, the collected payments whose
 * funds are swept and which no payout covers yet are paid out in one move of two legs from the collection account:
 * what the merchant is owed (Σ payable) to its payout address, and the fees (Σ fee) to the operator's treasury.
 * Exact: integer sums of minor units, no rounding anywhere but the minimum's (payoutMinimumUnits).
 */
import type { Knex } from 'knex';
import { forNamespaceOf } from '../chains/adapters.js';
import { allChains } from '../chains/index.js';
import type { SettlementConfig, PaygateEnv } from '../config.js';
import { findMerchant } from '../db/queries/accounts.js';
import { isUniqueViolation } from '../db/failure.js';
import { insertPayout, payoutCandidates, type PayoutCandidate, type PayoutItem } from '../db/queries/payoutRows.js';
import { newId } from '../ids.js';
import { enqueueMove, type MoveDeps } from './moves.js';

export interface PayoutDeps extends MoveDeps {
  config: { env: PaygateEnv; settlement: SettlementConfig };
}

/**
 * PAYGATE_PAYOUT_MINIMUM (whole units, a decimal string) in the asset's minor units, exactly. A minimum with more
 * fraction digits than the asset has is rounded up to the next minor unit: a minimum is never lowered.
 */
export function payoutMinimumUnits(minimum: string, decimals: number): bigint {
  const [whole, fraction = ''] = minimum.split('.');
  const scale = 10n ** BigInt(decimals);
  const kept = fraction.slice(0, decimals).padEnd(decimals, '0');
  const dropped = fraction.slice(decimals);
  const units = BigInt(whole!) * scale + BigInt(kept === '' ? '0' : kept);
  return /[1-9]/.test(dropped) ? units + 1n : units;
}

function decimalsOf(deps: MoveDeps, chain: string, asset: string): number {
  const found = allChains(deps.chains)
    .find((c) => c.config.caip2 === chain)
    ?.config.assets.find((a) => a.caip19 === asset);
  if (!found) throw new Error(`${asset} is not a configured asset of ${chain}`);
  return found.decimals;
}

/** Where a chain's fees go: the configured treasury, or development's derived one; refused elsewhere. */
export async function treasuryAddress(deps: PayoutDeps, chain: string): Promise<string> {
  const configured = deps.config.settlement.treasury[chain];
  if (configured !== undefined) return configured;
  if (deps.config.env !== 'development') {
    throw new Error(
      `PAYGATE_TREASURY_ADDRESSES names no treasury for ${chain}: collected fees there cannot be paid out (the derived development treasury is used in development only)`,
    );
  }
  return forNamespaceOf(deps.adapters, chain)!.settlement!.keyAddress(chain, { role: 'devTreasury' });
}

/** Plans every payout that is due now; answers the new payouts' ids. A group that cannot be paid is logged. */
export async function planPayouts(deps: PayoutDeps): Promise<string[]> {
  const candidates = (await payoutCandidates(deps.db.knex)).filter(
    (c) => forNamespaceOf(deps.adapters, c.chain)?.settlement?.mover !== undefined,
  );
  const groups = new Map<string, PayoutCandidate[]>();
  for (const c of candidates) {
    const key = [c.merchantId, c.live, c.chain, c.asset].join(' ');
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const planned: string[] = [];
  for (const group of groups.values()) {
    try {
      const id = await planOne(deps, group);
      if (id) planned.push(id);
    } catch (err) {
      const { merchantId, chain, asset } = group[0]!;
      deps.logger.error({ err, merchantId, chain, asset }, 'payout not planned');
    }
  }
  return planned;
}

async function planOne(deps: PayoutDeps, group: PayoutCandidate[]): Promise<string | null> {
  const { merchantId, live, chain, asset } = group[0]!;
  const id = newId.payout();
  const items: PayoutItem[] = group.map((c) => {
    // What the merchant is still owed for the payment: its payable less what final refunds took from it.
    const net = c.payable - c.refunded;
    if (net < 0n) throw new Error(`payment ${c.paymentId}: refunds (${c.refunded}) exceed its payable (${c.payable})`);
    return { payoutId: id, paymentId: c.paymentId, gross: c.payable + c.fee, fee: c.fee, net };
  });
  const net = items.reduce((s, i) => s + i.net, 0n);
  const fee = items.reduce((s, i) => s + i.fee, 0n);
  const gross = items.reduce((s, i) => s + i.gross, 0n);
  if (net + fee === 0n) return null;
  if (net < payoutMinimumUnits(deps.config.settlement.payoutMinimum, decimalsOf(deps, chain, asset))) return null;
  const merchant = await findMerchant(deps.db.knex, merchantId);
  const destination = merchant?.settlement_addresses[chain];
  if (!destination) throw new Error(`merchant ${merchantId} has no payout address on ${chain}`);
  const treasury = fee > 0n ? await treasuryAddress(deps, chain) : null;
  try {
    await deps.db.knex.transaction(async (trx: Knex.Transaction) => {
      const now = deps.now();
      await insertPayout(
        trx,
        {
          id,
          merchantId,
          live,
          chain,
          asset,
          gross,
          fee,
          net,
          destination,
          treasury,
          state: 'planned',
          txId: null,
          createdAt: now,
          sentAt: null,
          finalAt: null,
        },
        items,
      );
      await enqueueMove(trx, deps.jobs, 'payout', id);
    });
  } catch (err) {
    // Another process paid some of these payments out first (payout_items.payment_id is unique).
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  return id;
}
