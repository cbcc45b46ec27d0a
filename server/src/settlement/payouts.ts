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
import { insertPayout, payoutCandidates, type PayoutGroup, type PayoutItem } from '../db/queries/payoutRows.js';
import { lockMerchantBalance } from '../db/queries/refundRequests.js';
import { newId } from '../ids.js';
import { insertLedgerEntries, listLedgerEntries, type LedgerEntry } from './ledger.js';
import { enqueueMove, type MoveDeps } from './moveJobs.js';

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
  // Only which groups have candidates: each group's candidates are read again under its lock (planOne).
  const groups = new Map<string, PayoutGroup>();
  for (const c of await payoutCandidates(deps.db.knex)) {
    if (forNamespaceOf(deps.adapters, c.chain)?.settlement?.mover === undefined) continue;
    const { merchantId, live, chain, asset } = c;
    groups.set([merchantId, live, chain, asset].join(' '), { merchantId, live, chain, asset });
  }
  const planned: string[] = [];
  for (const group of groups.values()) {
    try {
      const id = await planOne(deps, group);
      if (id) planned.push(id);
    } catch (err) {
      const { merchantId, chain, asset } = group;
      deps.logger.error({ err, merchantId, chain, asset }, 'payout not planned');
    }
  }
  return planned;
}

/**
 * One payout of a group, in one transaction under the merchant's balance lock, the lock a refund takes
 * (refunds.ts): the candidates are read, the payout and its items written, and the merchant's share reserved
 * (`payout_reserved`) together, so a refund either ran before (the payment waits for it, or is paid what it left) or
 * runs after and finds the payment in this payout. On PostgreSQL the lock is the merchant's row; on SQLite the
 * transaction itself (one connection, one writer).
 */
async function planOne(deps: PayoutDeps, group: PayoutGroup): Promise<string | null> {
  const { merchantId, live, chain, asset } = group;
  const minimum = payoutMinimumUnits(deps.config.settlement.payoutMinimum, decimalsOf(deps, chain, asset));
  try {
    return await deps.db.knex.transaction(async (trx: Knex.Transaction) => {
      await lockMerchantBalance(trx, merchantId);
      const candidates = await payoutCandidates(trx, group);
      const id = newId.payout();
      const items: PayoutItem[] = candidates.map((c) => {
        // What the merchant is still owed for the payment: its payable less what its refunds reserved.
        const net = c.payable - c.refunded;
        if (net < 0n)
          throw new Error(`payment ${c.paymentId}: refunds (${c.refunded}) exceed its payable (${c.payable})`);
        return { payoutId: id, paymentId: c.paymentId, gross: c.payable + c.fee, fee: c.fee, net };
      });
      const net = items.reduce((s, i) => s + i.net, 0n);
      const fee = items.reduce((s, i) => s + i.fee, 0n);
      const gross = items.reduce((s, i) => s + i.gross, 0n);
      if (net + fee === 0n || net < minimum) return null;
      const merchant = await findMerchant(trx, merchantId);
      const destination = merchant?.settlement_addresses[chain];
      if (!destination) throw new Error(`merchant ${merchantId} has no payout address on ${chain}`);
      const treasury = fee > 0n ? await treasuryAddress(deps, chain) : null;
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
      if (net > 0n)
        await insertLedgerEntries(trx, [payoutReserved({ id, merchantId, live, chain, asset, net, destination }, now)]);
      await enqueueMove(trx, deps.jobs, 'payout', id);
      return id;
    });
  } catch (err) {
    // Another process paid some of these payments out first (payout_items.payment_id is unique).
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

interface Reservable {
  id: string;
  merchantId: string;
  live: boolean;
  chain: string;
  asset: string;
  net: bigint;
  destination: string;
}

/** The pending entry of a planned payout: the merchant's share, out of their unpaid balance until posted or voided. */
function payoutReserved(p: Reservable, now: number): LedgerEntry {
  return {
    entryKey: `payout_reserved:${p.id}`,
    kind: 'payout_reserved',
    merchantId: p.merchantId,
    live: p.live,
    mode: 'collected',
    chain: p.chain,
    asset: p.asset,
    amount: p.net,
    address: p.destination,
    payoutId: p.id,
    createdAt: now,
  };
}

/**
 * Closes a payout's reservation, once (the key is the payout's), in the transaction that makes the payout final
 * (beside its `paid_out`: posted) or failed (voided). A payout planned before reservations existed has none, and
 * gets no release: answers whether there was one.
 */
export async function releasePayoutReservation(trx: Knex.Transaction, payoutId: string, now: number): Promise<boolean> {
  const [reserved] = await listLedgerEntries(trx, { payoutId, kinds: ['payout_reserved'] });
  if (!reserved) return false;
  await insertLedgerEntries(trx, [
    {
      ...reserved,
      entryKey: `payout_released:${payoutId}`,
      kind: 'payout_released',
      txId: null,
      createdAt: now,
    },
  ]);
  return true;
}
