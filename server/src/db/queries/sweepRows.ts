import type { Knex } from 'knex';

/** A final transfer to a deposit address that no live sweep covers yet. */
export interface UnsweptTransfer {
  transferId: string;
  paymentId: string;
  merchantId: string;
  live: boolean;
  chain: string;
  asset: string;
  address: string;
  derivationIndex: number;
  amount: bigint;
}

/**
 * Final deposit transfers, received in the ledger, not in any sweep (a failed sweep's rows are deleted with its failure). Read inside the
 * planning transaction; `sweep_transfers.transfer_id` is unique, so a concurrent planner's insert of the same
 * transfer fails instead of planning it twice.
 */
export async function unsweptTransfers(db: Knex | Knex.Transaction): Promise<UnsweptTransfer[]> {
  const rows = (await db('deposit_transfers as t')
    .join('deposit_addresses as a', function () {
      this.on('a.chain_caip2', 't.chain_caip2').andOn('a.address', 't.address');
    })
    .join('payments as p', 'p.id', 't.payment_id')
    .where('t.state', 'final')
    // Only what the ledger has received: a sweep's `swept` entry never precedes its `received` one.
    .whereExists(
      db('ledger_entries as l')
        .whereRaw("l.entry_key = 'received:' || t.chain_caip2 || ':' || t.tx_id || ':' || t.position")
        .select(db.raw('1')),
    )
    .whereNotExists(db('sweep_transfers as s').whereRaw('s.transfer_id = t.id').select(db.raw('1')))
    // Money from a screened sender is held at its deposit address for the operator (docs/decisions.md §25.8).
    .whereNotExists(
      db('discrepancies as d')
        .whereRaw('d.payment_id = t.payment_id')
        .where('d.kind', 'screened_sender')
        .whereRaw('d.chain_caip2 = t.chain_caip2')
        .whereRaw('d.tx_id = t.tx_id')
        .select(db.raw('1')),
    )
    .orderBy('t.id')
    .select(
      't.id',
      't.payment_id',
      'p.merchant_id',
      'p.live',
      't.chain_caip2',
      't.asset_caip19',
      't.address',
      'a.derivation_index',
      't.amount',
    )) as {
    id: string;
    payment_id: string;
    merchant_id: string;
    live: boolean | number;
    chain_caip2: string;
    asset_caip19: string;
    address: string;
    derivation_index: number;
    amount: string;
  }[];
  return rows.map((r) => ({
    transferId: r.id,
    paymentId: r.payment_id,
    merchantId: r.merchant_id,
    live: r.live === true || r.live === 1,
    chain: r.chain_caip2,
    asset: r.asset_caip19,
    address: r.address,
    derivationIndex: Number(r.derivation_index),
    amount: BigInt(r.amount),
  }));
}

export interface NewSweep {
  id: string;
  chain: string;
  asset: string;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
  createdAt: number;
  transfers: UnsweptTransfer[];
}

export async function insertSweep(trx: Knex.Transaction, s: NewSweep): Promise<void> {
  await trx('sweeps').insert({
    id: s.id,
    chain_caip2: s.chain,
    asset_caip19: s.asset,
    from_address: s.fromAddress,
    to_address: s.toAddress,
    amount: s.amount.toString(),
    state: 'planned',
    tx_id: null,
    details: '{}',
    created_at: s.createdAt,
    updated_at: s.createdAt,
  });
  await trx('sweep_transfers').insert(
    s.transfers.map((t) => ({
      sweep_id: s.id,
      transfer_id: t.transferId,
      payment_id: t.paymentId,
      address: t.address,
      derivation_index: t.derivationIndex,
      amount: t.amount.toString(),
    })),
  );
}

/** One leg per deposit address of a sweep: what its transfers there sum to, and who the funds belong to. */
export interface SweepLeg {
  address: string;
  derivationIndex: number;
  amount: bigint;
  merchantId: string;
  live: boolean;
  paymentId: string;
}

export async function sweepLegs(db: Knex | Knex.Transaction, sweepId: string): Promise<SweepLeg[]> {
  const rows = (await db('sweep_transfers as s')
    .join('payments as p', 'p.id', 's.payment_id')
    .where('s.sweep_id', sweepId)
    .orderBy([{ column: 's.derivation_index' }, { column: 's.transfer_id' }])
    .select('s.address', 's.derivation_index', 's.amount', 's.payment_id', 'p.merchant_id', 'p.live')) as {
    address: string;
    derivation_index: number;
    amount: string;
    payment_id: string;
    merchant_id: string;
    live: boolean | number;
  }[];
  const legs = new Map<string, SweepLeg>();
  for (const r of rows) {
    const found = legs.get(r.address);
    if (found) found.amount += BigInt(r.amount);
    else
      legs.set(r.address, {
        address: r.address,
        derivationIndex: Number(r.derivation_index),
        amount: BigInt(r.amount),
        merchantId: r.merchant_id,
        live: r.live === true || r.live === 1,
        paymentId: r.payment_id,
      });
  }
  return [...legs.values()];
}

/** A failed sweep gives its transfers back to the next plan. */
export async function releaseSweepTransfers(trx: Knex.Transaction, sweepId: string): Promise<void> {
  await trx('sweep_transfers').where({ sweep_id: sweepId }).delete();
}

/**
 * Whether every transfer to the payment's deposit addresses (seen or final; a reorged one never paid) is in a final
 * sweep: its money is all at the collection account. A refund's move waits for it (moves.ts).
 */
export async function paymentFundsSwept(db: Knex | Knex.Transaction, paymentId: string): Promise<boolean> {
  const waiting = (await db('deposit_transfers as t')
    .where('t.payment_id', paymentId)
    .whereIn('t.state', ['seen', 'final'])
    .whereNotExists(
      db('sweep_transfers as st')
        .join('sweeps as s', 's.id', 'st.sweep_id')
        .whereRaw('st.transfer_id = t.id')
        .where('s.state', 'final')
        .select(db.raw('1')),
    )
    .first('t.id')) as { id: string } | undefined;
  return waiting === undefined;
}

/**
 * The refunds of these payments still waiting for their money to be swept (planned, nothing prepared, claimed): a
 * final sweep wakes them at once instead of at their next look (moves.ts).
 */
export async function refundsAwaitingSweep(
  db: Knex | Knex.Transaction,
  paymentIds: readonly string[],
): Promise<string[]> {
  if (paymentIds.length === 0) return [];
  const rows = (await db('onchain_refunds')
    .whereIn('payment_id', [...new Set(paymentIds)])
    .where({ state: 'planned', details: '{}' })
    .whereNotNull('destination')
    .select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}
