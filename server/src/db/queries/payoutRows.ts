import type { Knex } from 'knex';

/** A collected payment ready to be paid out: owed (a `payable` entry), swept, in no payout yet, no refund in flight. */
export interface PayoutCandidate {
  paymentId: string;
  merchantId: string;
  live: boolean;
  chain: string;
  asset: string;
  payable: bigint;
  fee: bigint;
  /**
   * What refunds of the payment reserved from what it owes: every `refunded` entry (written when the refund is asked
   * for, whatever its state since) net of the `refund_released` ones (refunds that will never be sent).
   */
  refunded: bigint;
}

export interface PayoutGroup {
  merchantId: string;
  live: boolean;
  chain: string;
  asset: string;
}

/**
 * The candidates, of one group when given. payouts.ts reads them again inside the planning transaction, under the
 * merchant's balance lock, so what it plans is what no refund took meanwhile. A payment waits while any transfer to
 * its deposit is not in a final sweep (its funds are not all at the collection account yet) and while a refund of it
 * is still open (awaiting its claim, planned or sent): such a refund may still be released, and what it gives back
 * must find the payment not yet paid out (a payment is in one payout only). A refund of its excess does not hold it.
 */
export async function payoutCandidates(db: Knex | Knex.Transaction, group?: PayoutGroup): Promise<PayoutCandidate[]> {
  const ledger = db('ledger_entries as l')
    .join('payments as p', 'p.id', 'l.payment_id')
    .where({ 'l.kind': 'payable', 'l.mode': 'collected' })
    .whereNotExists(db('payout_items as i').whereRaw('i.payment_id = l.payment_id').select(db.raw('1')))
    .whereExists(
      db('deposit_transfers as t')
        .whereRaw('t.payment_id = l.payment_id')
        .where('t.state', 'final')
        .select(db.raw('1')),
    )
    .whereNotExists(
      db('deposit_transfers as t')
        .whereRaw('t.payment_id = l.payment_id')
        .whereIn('t.state', ['seen', 'final'])
        .whereNotExists(
          db('sweep_transfers as st')
            .join('sweeps as s', 's.id', 'st.sweep_id')
            .whereRaw('st.transfer_id = t.id')
            .where('s.state', 'final')
            .select(db.raw('1')),
        )
        .select(db.raw('1')),
    )
    .whereNotExists(
      db('onchain_refunds as r')
        .whereRaw('r.payment_id = l.payment_id')
        // A refund of the payment's excess draws on none of what it owes the merchant.
        .where('r.source', 'payment')
        .whereNotIn('r.state', ['final', 'failed', 'expired', 'cancelled'])
        .select(db.raw('1')),
    )
    .modify((q) => {
      if (group)
        q.where({
          'l.merchant_id': group.merchantId,
          'p.live': group.live,
          'l.chain_caip2': group.chain,
          'l.asset_caip19': group.asset,
        });
    })
    .orderBy('l.id')
    .select('l.payment_id', 'l.merchant_id', 'p.live', 'l.chain_caip2', 'l.asset_caip19', 'l.amount');
  const rows = (await ledger) as {
    payment_id: string;
    merchant_id: string;
    live: boolean | number;
    chain_caip2: string;
    asset_caip19: string;
    amount: string;
  }[];
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.payment_id);
  const fees = new Map<string, bigint>();
  const refunded = new Map<string, bigint>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const entries = (await db('ledger_entries')
      .whereIn('payment_id', chunk)
      .where({ mode: 'collected' })
      // A refund's network fee is the merchant's cost (§22.13): the payout leaves it in the collection account.
      .whereIn('kind', ['fee', 'refunded', 'refund_released', 'refund_network_fee', 'refund_fee_released'])
      .select('payment_id', 'kind', 'amount')) as { payment_id: string; kind: string; amount: string }[];
    for (const e of entries) {
      const into = e.kind === 'fee' ? fees : refunded;
      // A released refund was never sent: what it reserved is the merchant's again.
      const released = e.kind === 'refund_released' || e.kind === 'refund_fee_released';
      const amount = released ? -BigInt(e.amount) : BigInt(e.amount);
      into.set(e.payment_id, (into.get(e.payment_id) ?? 0n) + amount);
    }
  }
  return rows.map((r) => ({
    paymentId: r.payment_id,
    merchantId: r.merchant_id,
    live: r.live === true || r.live === 1,
    chain: r.chain_caip2,
    asset: r.asset_caip19,
    payable: BigInt(r.amount),
    fee: fees.get(r.payment_id) ?? 0n,
    refunded: refunded.get(r.payment_id) ?? 0n,
  }));
}

export interface PayoutRow {
  id: string;
  merchantId: string;
  live: boolean;
  chain: string;
  asset: string;
  gross: bigint;
  fee: bigint;
  net: bigint;
  destination: string;
  treasury: string | null;
  state: string;
  txId: string | null;
  createdAt: number;
  sentAt: number | null;
  finalAt: number | null;
}

export interface PayoutItem {
  payoutId: string;
  paymentId: string;
  gross: bigint;
  fee: bigint;
  net: bigint;
}

export async function insertPayout(trx: Knex.Transaction, p: PayoutRow, items: PayoutItem[]): Promise<void> {
  await trx('payouts').insert({
    id: p.id,
    merchant_id: p.merchantId,
    live: p.live,
    chain_caip2: p.chain,
    asset_caip19: p.asset,
    gross: p.gross.toString(),
    fee: p.fee.toString(),
    net: p.net.toString(),
    destination: p.destination,
    treasury: p.treasury,
    state: 'planned',
    tx_id: null,
    details: '{}',
    created_at: p.createdAt,
  });
  for (let i = 0; i < items.length; i += 200) {
    await trx('payout_items').insert(
      items.slice(i, i + 200).map((it) => ({
        payout_id: it.payoutId,
        payment_id: it.paymentId,
        gross: it.gross.toString(),
        fee: it.fee.toString(),
        net: it.net.toString(),
      })),
    );
  }
}

interface RawPayout {
  id: string;
  merchant_id: string;
  live: boolean | number;
  chain_caip2: string;
  asset_caip19: string;
  gross: string;
  fee: string;
  net: string;
  destination: string;
  treasury: string | null;
  state: string;
  tx_id: string | null;
  created_at: number | string;
  sent_at: number | string | null;
  final_at: number | string | null;
}

function fromRaw(r: RawPayout): PayoutRow {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    live: r.live === true || r.live === 1,
    chain: r.chain_caip2,
    asset: r.asset_caip19,
    gross: BigInt(r.gross),
    fee: BigInt(r.fee),
    net: BigInt(r.net),
    destination: r.destination,
    treasury: r.treasury,
    state: r.state,
    txId: r.tx_id,
    createdAt: Number(r.created_at),
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
    finalAt: r.final_at === null ? null : Number(r.final_at),
  };
}

export async function findPayout(
  db: Knex | Knex.Transaction,
  id: string,
  scope?: { merchantId: string; live: boolean },
): Promise<PayoutRow | null> {
  const query = db('payouts').where({ id });
  if (scope) query.where({ merchant_id: scope.merchantId, live: scope.live });
  const raw = (await query.first()) as RawPayout | undefined;
  return raw ? fromRaw(raw) : null;
}

/**
 * A merchant's payouts of one mode, newest first, after `startingAfter` (its created_at and id), optionally planned
 * within `[createdGte, createdLt)` (milliseconds).
 */
export async function listPayoutRows(
  db: Knex | Knex.Transaction,
  q: {
    merchantId: string;
    live: boolean;
    limit: number;
    startingAfter?: { createdAt: number; id: string };
    createdGte?: number;
    createdLt?: number;
  },
): Promise<PayoutRow[]> {
  const query = db('payouts').where({ merchant_id: q.merchantId, live: q.live });
  if (q.createdGte !== undefined) query.where('created_at', '>=', q.createdGte);
  if (q.createdLt !== undefined) query.where('created_at', '<', q.createdLt);
  if (q.startingAfter) {
    const { createdAt, id } = q.startingAfter;
    // A row comparison: PostgreSQL takes it as a bound of payouts_list_idx (docs/decisions.md §24.1, §24.5).
    query.whereRaw('(created_at, id) < (?, ?)', [createdAt, id]);
  }
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit)) as RawPayout[];
  return rows.map(fromRaw);
}

export async function payoutItemsOf(db: Knex | Knex.Transaction, payoutIds: string[]): Promise<PayoutItem[]> {
  if (payoutIds.length === 0) return [];
  const rows = (await db('payout_items')
    .whereIn('payout_id', payoutIds)
    .orderBy([{ column: 'payout_id' }, { column: 'payment_id' }])
    .select('payout_id', 'payment_id', 'gross', 'fee', 'net')) as {
    payout_id: string;
    payment_id: string;
    gross: string;
    fee: string;
    net: string;
  }[];
  return rows.map((r) => ({
    payoutId: r.payout_id,
    paymentId: r.payment_id,
    gross: BigInt(r.gross),
    fee: BigInt(r.fee),
    net: BigInt(r.net),
  }));
}

/** The payout (planned, sent or final) that covers a payment, if any: a failed one gave its payments back. */
export async function payoutOfPayment(
  db: Knex | Knex.Transaction,
  paymentId: string,
): Promise<{ id: string; state: string; net: bigint } | null> {
  const row = (await db('payout_items as i')
    .join('payouts as p', 'p.id', 'i.payout_id')
    .where('i.payment_id', paymentId)
    .first('p.id', 'p.state', 'i.net')) as { id: string; state: string; net: string } | undefined;
  return row ? { id: row.id, state: row.state, net: BigInt(row.net) } : null;
}

/** A failed payout gives its payments back to the next plan (payout_items.payment_id is unique). */
export async function releasePayoutItems(trx: Knex.Transaction, payoutId: string): Promise<void> {
  await trx('payout_items').where({ payout_id: payoutId }).delete();
}
