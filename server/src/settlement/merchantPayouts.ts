/**
 * The merchant's view of collected settlement (merchant contract, tag Settlement): its payouts with the payments each
 * covered, and its unpaid balances from the ledger. Reads only; the money moves in payouts.ts and moves.ts.
 */
import type { Knex } from 'knex';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import {
  findPayout,
  listPayoutRows,
  payoutItemsOf,
  type PayoutItem,
  type PayoutRow,
} from '../db/queries/payoutRows.js';
import { iso } from '../payments/snapshot.js';
import { unpaidBalances } from './ledger.js';

type Payout = components['schemas']['Payout'];
type PayoutList = components['schemas']['PayoutList'];
type SettlementBalances = components['schemas']['SettlementBalances'];

export interface MerchantScope {
  merchantId: string;
  live: boolean;
}

function toPayout(row: PayoutRow, items: PayoutItem[]): Payout {
  const money = (value: bigint) => ({ unit: `caip19/${row.asset}`, value: value.toString() });
  return {
    payout_id: row.id,
    live: row.live,
    chain_caip2: row.chain,
    gross: money(row.gross),
    fee: money(row.fee),
    net: money(row.net),
    destination: row.destination,
    state: row.state as Payout['state'],
    tx_id: row.txId,
    created_at: iso(row.createdAt),
    sent_at: row.sentAt === null ? null : iso(row.sentAt),
    final_at: row.finalAt === null ? null : iso(row.finalAt),
    payments: items.map((i) => ({
      payment_id: i.paymentId,
      gross: money(i.gross),
      fee: money(i.fee),
      net: money(i.net),
    })),
  };
}

/** The spec's 35 codes have none for a payout: a missing resource is `invalid_params` as in the dashboard (§2). */
function notFound(id: string): ApiError {
  return new ApiError('invalid_params', `No payout with id ${id}.`, { status: 404 });
}

export async function readPayout(db: Knex, scope: MerchantScope, id: string): Promise<Payout> {
  const row = await findPayout(db, id, scope);
  if (!row) throw notFound(id);
  return toPayout(row, await payoutItemsOf(db, [row.id]));
}

export async function listPayouts(
  db: Knex,
  scope: MerchantScope,
  query: { limit?: number; startingAfter?: string },
): Promise<PayoutList> {
  const limit = query.limit ?? 20;
  let after: { createdAt: number; id: string } | undefined;
  if (query.startingAfter !== undefined) {
    const cursor = await findPayout(db, query.startingAfter, scope);
    if (!cursor) throw notFound(query.startingAfter);
    after = { createdAt: cursor.createdAt, id: cursor.id };
  }
  // One more than the page: whether another page follows, without a count.
  const rows = await listPayoutRows(db, { ...scope, limit: limit + 1, startingAfter: after });
  const page = rows.slice(0, limit);
  const items = await payoutItemsOf(
    db,
    page.map((r) => r.id),
  );
  const hasMore = rows.length > limit;
  return {
    data: page.map((r) =>
      toPayout(
        r,
        items.filter((i) => i.payoutId === r.id),
      ),
    ),
    hasMore,
    nextCursor: hasMore ? page[page.length - 1]!.id : null,
  };
}

export async function settlementBalances(db: Knex, scope: MerchantScope): Promise<SettlementBalances> {
  const balances = await unpaidBalances(db, scope);
  return {
    data: balances
      .sort((a, b) => (a.chain + a.asset < b.chain + b.asset ? -1 : 1))
      .map((b) => ({ chain_caip2: b.chain, unpaid: { unit: `caip19/${b.asset}`, value: b.amount.toString() } })),
  };
}
