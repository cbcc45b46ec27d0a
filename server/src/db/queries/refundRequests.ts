/** The request side of on-chain refunds (`onchain_refunds`): created by the merchant, claimed by the buyer. */
import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

/** `expired` and `cancelled` end an awaiting claim link without sending: its reservation is given back. */
export type OnchainRefundState = 'awaiting_claim' | 'planned' | 'sent' | 'final' | 'failed' | 'expired' | 'cancelled';

/** What a refund draws on: the payment's money owed to the merchant, or the excess the buyer sent beyond it. */
export type RefundSource = 'payment' | 'excess';

export interface OnchainRefundRow {
  id: string;
  source: RefundSource;
  payment_id: string;
  merchant_id: string;
  chain_caip2: string;
  asset_caip19: string;
  amount: string;
  destination: string | null;
  claim_token_hash: string | null;
  claim_expires_at: number | null;
  reason: string | null;
  state: OnchainRefundState;
  tx_id: string | null;
  /** What the merchant was charged for the refund's transaction (minor units); absent for refunds before 011. */
  network_fee?: string | null;
  details: string;
  created_at: number;
  updated_at: number;
}

const numeric = (r: OnchainRefundRow): OnchainRefundRow => ({
  ...r,
  claim_expires_at: r.claim_expires_at === null ? null : Number(r.claim_expires_at),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

/**
 * Serialises what draws on one merchant's balance: their refunds, and the planning of their payouts (PostgreSQL locks
 * the merchant's row; on SQLite the transaction itself is the lock, one connection and one writer), so two refunds, or
 * a refund and a payout, cannot both spend the same money.
 */
export async function lockMerchantBalance(trx: Knex.Transaction, merchantId: string): Promise<void> {
  if (dialectOf(trx) === 'postgres') await trx('merchants').select('id').where({ id: merchantId }).forUpdate();
}

export async function insertOnchainRefund(trx: Knex.Transaction, row: OnchainRefundRow): Promise<void> {
  await trx('onchain_refunds').insert(row);
}

/** A payment's refunds, oldest first (the order of its `refunded.refunds`). */
export async function refundsOfPayment(db: Knex | Knex.Transaction, paymentId: string): Promise<OnchainRefundRow[]> {
  const rows = (await db('onchain_refunds')
    .where('payment_id', paymentId)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])) as OnchainRefundRow[];
  return rows.map(numeric);
}

export async function findRefundByClaimHash(
  db: Knex | Knex.Transaction,
  hash: string,
): Promise<OnchainRefundRow | null> {
  const row = (await db('onchain_refunds').where('claim_token_hash', hash).first()) as OnchainRefundRow | undefined;
  return row ? numeric(row) : null;
}

/**
 * Gives an awaiting refund its destination, once: the update names the state it expects, so of two claims at once
 * only the first changes a row. Answers whether it did.
 */
export async function claimOnchainRefund(
  trx: Knex.Transaction,
  id: string,
  change: { destination: string; now: number },
): Promise<boolean> {
  const updated = await trx('onchain_refunds')
    .where({ id, state: 'awaiting_claim' })
    .where('claim_expires_at', '>', change.now)
    .update({ destination: change.destination, state: 'planned', updated_at: change.now });
  return updated === 1;
}

/**
 * Ends an awaiting refund without sending it (its claim link expired or was cancelled), once: the update names the
 * state it expects, so it races a claim safely. Answers whether it did.
 */
export async function endAwaitingRefund(
  trx: Knex.Transaction,
  id: string,
  change: { state: 'expired' | 'cancelled'; now: number },
): Promise<boolean> {
  const query = trx('onchain_refunds').where({ id, state: 'awaiting_claim' });
  // Expiry only of a link past its time (a claim just before it wins).
  if (change.state === 'expired') query.where('claim_expires_at', '<=', change.now);
  return (await query.update({ state: change.state, updated_at: change.now })) === 1;
}

/** Awaiting refunds whose claim link has passed its time, oldest first (the sweep ends them). */
export async function overdueClaims(
  db: Knex | Knex.Transaction,
  now: number,
  limit: number,
): Promise<{ id: string; payment_id: string }[]> {
  return (await db('onchain_refunds')
    .where('state', 'awaiting_claim')
    .where('claim_expires_at', '<=', now)
    .orderBy([{ column: 'claim_expires_at' }, { column: 'id' }])
    .limit(limit)
    .select('id', 'payment_id')) as { id: string; payment_id: string }[];
}

export async function findOnchainRefund(db: Knex | Knex.Transaction, id: string): Promise<OnchainRefundRow | null> {
  const row = (await db('onchain_refunds').where({ id }).first()) as OnchainRefundRow | undefined;
  return row ? numeric(row) : null;
}
