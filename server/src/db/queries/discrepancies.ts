import type { Knex } from 'knex';

/**
 * `reorged_out`: a succeeded payment's transaction left the chain before it was final and did not come back
 * (direct settlement, docs/decisions.md §22.1); the payment stays succeeded and is never settled.
 * `unwatched_deposit`: reconciliation found a deposit address holding more than the ledger knows, past the time
 * detection could explain it (typically a transfer after detection stopped watching the address, 7 days after its
 * payment ended; §22.15). No transaction is known: `received_value` is the address's balance, `expected_value` what
 * the ledger says it holds; the money is still at the deposit address.
 * `unroutable_deposit`: a transfer to a payment's deposit address on a chain where its merchant has no settlement
 * address (removed after the address was given out, or the payment is not collected): it pays nothing and is never
 * the merchant's payable; the money stays in the service's accounts, refundable from itself (§22.14).
 * `screened_sender`: a transfer to a payment's deposit address from an account on the screening list (§25.8): it
 * pays nothing, is neither the merchant's nor a refundable excess, and is never swept: it is held at the deposit
 * address for the operator. `expected_value` is 0 (nothing of it was taken).
 */
export type DiscrepancyKind =
  | 'late_payment'
  | 'overpayment'
  | 'underpayment'
  | 'reorged_out'
  | 'unwatched_deposit'
  | 'unroutable_deposit'
  | 'screened_sender';

export interface DiscrepancyRow {
  id: string;
  paymentId: string;
  kind: DiscrepancyKind;
  live: boolean;
  chain: string;
  txId: string | null;
  assetUnit: string;
  expectedValue: string;
  receivedValue: string;
  note: string;
  createdAt: number;
}

interface Raw {
  id: string;
  payment_id: string;
  kind: DiscrepancyKind;
  live: boolean | number;
  chain_caip2: string;
  tx_id: string | null;
  asset_unit: string;
  expected_value: string;
  received_value: string;
  note: string;
  created_at: number | string;
}

/** Records a finding once: the same payment, kind and transaction seen again (a retried confirm) changes nothing. */
export async function insertDiscrepancy(db: Knex | Knex.Transaction, row: DiscrepancyRow): Promise<void> {
  await db('discrepancies')
    .insert({
      id: row.id,
      payment_id: row.paymentId,
      kind: row.kind,
      live: row.live,
      chain_caip2: row.chain,
      tx_id: row.txId,
      asset_unit: row.assetUnit,
      expected_value: row.expectedValue,
      received_value: row.receivedValue,
      note: row.note,
      created_at: row.createdAt,
    })
    .onConflict(db.raw('(payment_id, kind, chain_caip2, tx_id) WHERE tx_id IS NOT NULL'))
    .ignore();
}

/**
 * The transactions of a payment on a chain already held as `screened_sender`: once held, a transfer stays held
 * whatever the screening list says later (a list changed by a restart never releases money into a payment).
 */
export async function screenedTransactionsOf(
  db: Knex | Knex.Transaction,
  paymentId: string,
  chain: string,
): Promise<Set<string>> {
  const rows = (await db('discrepancies')
    .where({ payment_id: paymentId, kind: 'screened_sender', chain_caip2: chain })
    .whereNotNull('tx_id')
    .select('tx_id')) as { tx_id: string }[];
  return new Set(rows.map((r) => r.tx_id));
}

/**
 * Records money standing at a deposit address beyond the ledger once per payment, chain, asset and balance
 * (`discrepancies_unwatched_once`): every process's reconciliation runs see it again, and a new balance (another
 * transfer) is a new finding.
 */
export async function insertUnwatchedDeposit(
  db: Knex | Knex.Transaction,
  row: Omit<DiscrepancyRow, 'kind' | 'txId'>,
): Promise<void> {
  await db('discrepancies')
    .insert({
      id: row.id,
      payment_id: row.paymentId,
      kind: 'unwatched_deposit',
      live: row.live,
      chain_caip2: row.chain,
      tx_id: null,
      asset_unit: row.assetUnit,
      expected_value: row.expectedValue,
      received_value: row.receivedValue,
      note: row.note,
      created_at: row.createdAt,
    })
    .onConflict(db.raw("(payment_id, kind, chain_caip2, asset_unit, received_value) WHERE kind = 'unwatched_deposit'"))
    .ignore();
}

export async function listDiscrepancies(
  db: Knex | Knex.Transaction,
  filter: { live?: boolean; paymentId?: string; limit: number },
): Promise<DiscrepancyRow[]> {
  let query = db('discrepancies').orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]);
  if (filter.live !== undefined) query = query.where({ live: filter.live });
  if (filter.paymentId !== undefined) query = query.where({ payment_id: filter.paymentId });
  const rows = (await query.limit(filter.limit)) as Raw[];
  return rows.map((raw) => ({
    id: raw.id,
    paymentId: raw.payment_id,
    kind: raw.kind,
    live: raw.live === true || raw.live === 1,
    chain: raw.chain_caip2,
    txId: raw.tx_id,
    assetUnit: raw.asset_unit,
    expectedValue: raw.expected_value,
    receivedValue: raw.received_value,
    note: raw.note,
    createdAt: Number(raw.created_at),
  }));
}
