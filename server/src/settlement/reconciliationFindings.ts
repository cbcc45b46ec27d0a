/**
 * What reconciliation records (docs/decisions.md §22.15): money standing at a deposit address beyond what the ledger
 * knows is a finding for the operator, an `unwatched_deposit` discrepancy of the address's payment, not an alarm.
 * Deposit addresses are public and detection stops watching one 7 days after its payment ended, so anyone can put
 * such money there; failing readiness on it would hand anyone an off switch. The money stays at the deposit address
 * (nothing sweeps it) until the operator refunds or moves it.
 */
import type { Logger } from 'pino';
import type { Database } from '../db/connect.js';
import { insertUnwatchedDeposit } from '../db/queries/discrepancies.js';
import { depositOwners } from '../db/queries/reconciliationRows.js';
import { randomBase62 } from '../ids.js';
import type { Difference } from './reconciliationDifference.js';

/** A standing surplus at a deposit address: what `recordFindings` records. */
export function isUnwatchedDeposit(d: Difference): boolean {
  return d.role === 'deposit' && d.state === 'standing' && d.difference > 0n;
}

/** Records each standing deposit surplus once per balance seen (the unique index makes repeats and races no-ops). */
export async function recordFindings(
  deps: { db: Database; now: () => number; logger: Logger },
  differences: Difference[],
): Promise<void> {
  const found = differences.filter(isUnwatchedDeposit);
  const byChain = new Map<string, Difference[]>();
  for (const d of found) byChain.set(d.chain, [...(byChain.get(d.chain) ?? []), d]);
  for (const [chain, list] of byChain) {
    const owners = await depositOwners(
      deps.db.knex,
      chain,
      list.map((d) => d.address),
    );
    for (const d of list) {
      const owner = owners.get(d.address);
      if (!owner) continue;
      await insertUnwatchedDeposit(deps.db.knex, {
        id: `dsc_${randomBase62(20)}`,
        paymentId: owner.paymentId,
        live: owner.live,
        chain,
        assetUnit: `caip19/${d.asset}`,
        expectedValue: d.expected.toString(),
        receivedValue: d.actual.toString(),
        note:
          `Deposit address ${d.address} holds ${d.difference} more than the ledger knows (since ` +
          `${new Date(d.since).toISOString()}): a transfer detection did not credit, usually one sent after it ` +
          `stopped watching the address. The money stays at the deposit address; nothing sweeps it.`,
        createdAt: deps.now(),
      });
    }
  }
}
