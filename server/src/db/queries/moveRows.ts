/**
 * The rows of money the service moves itself: sweeps, payouts and on-chain refunds share their move columns
 * (state planned | sent | final | failed, tx_id, details), so one executor drives all three (settlement/moves.ts).
 */
import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

export type MoveKind = 'sweep' | 'payout' | 'refund';
export type MoveState = 'planned' | 'sent' | 'final' | 'failed';

const tables: Record<MoveKind, string> = { sweep: 'sweeps', payout: 'payouts', refund: 'onchain_refunds' };

export interface MoveRow {
  kind: MoveKind;
  id: string;
  chain: string;
  asset: string;
  state: string;
  txId: string | null;
  /** What `prepare` answered; empty until then. */
  details: Record<string, unknown>;
  /** The row's other columns as stored (amounts, addresses): each kind builds its legs from them. */
  raw: Record<string, unknown>;
}

export async function findMoveRow(
  db: Knex | Knex.Transaction,
  kind: MoveKind,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<MoveRow | null> {
  let query = db(tables[kind]).where({ id }).first();
  if (options.forUpdate && dialectOf(db) === 'postgres') query = query.forUpdate();
  const raw = (await query) as Record<string, unknown> | undefined;
  if (!raw) return null;
  return {
    kind,
    id,
    chain: raw.chain_caip2 as string,
    asset: raw.asset_caip19 as string,
    state: raw.state as string,
    txId: (raw.tx_id as string | null) ?? null,
    details: JSON.parse(raw.details as string) as Record<string, unknown>,
    raw,
  };
}

export interface MoveChange {
  state?: MoveState;
  /** undefined: unchanged; null: cleared. */
  txId?: string | null;
  details?: Record<string, unknown>;
  /** Only if no details are stored yet: what a resend sends is written once. */
  firstDetails?: boolean;
  now: number;
}

/** Applies `change` if the row is still in one of `from`; answers whether it was. */
export async function updateMoveRow(
  db: Knex | Knex.Transaction,
  kind: MoveKind,
  id: string,
  from: readonly string[],
  change: MoveChange,
): Promise<boolean> {
  const update: Record<string, unknown> = {};
  if (change.state !== undefined) update.state = change.state;
  if (change.txId !== undefined) update.tx_id = change.txId;
  if (change.details !== undefined) update.details = JSON.stringify(change.details);
  if (kind === 'payout') {
    if (change.state === 'sent') update.sent_at = change.now;
    if (change.state === 'final') update.final_at = change.now;
  } else update.updated_at = change.now;
  const query = db(tables[kind]).where({ id }).whereIn('state', from);
  if (change.firstDetails) query.where('details', '{}');
  const count = await query.update(update);
  return count > 0;
}

/** Rows still moving (planned or sent): what a restart hands back to the executor. */
export async function openMoveRows(db: Knex | Knex.Transaction, kind: MoveKind): Promise<string[]> {
  const query = db(tables[kind]).whereIn('state', ['planned', 'sent']);
  // A refund waits for its destination (the claim) before it is a move.
  if (kind === 'refund') query.whereNotNull('destination');
  const rows = (await query.select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}
