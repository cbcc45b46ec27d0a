import type { Knex } from 'knex';

/** deposit_transfers: seen (detected, still watched), final (final on chain and accounted), reorged (gone). */
export type SeenTransferState = 'seen' | 'final' | 'reorged';

export interface SeenTransferRow {
  id: string;
  chain: string;
  asset: string;
  address: string;
  paymentId: string;
  txId: string;
  position: number;
  from: string | null;
  amount: bigint;
  blockNumber: bigint | null;
  blockHash: string | null;
  blockTime: number | null;
  state: SeenTransferState;
  detectedAt: number;
}

interface Raw {
  id: string;
  chain_caip2: string;
  asset_caip19: string;
  address: string;
  payment_id: string;
  tx_id: string;
  position: number | string;
  from_address: string | null;
  amount: string;
  block_number: number | string | null;
  block_hash: string | null;
  block_time: number | string | null;
  state: SeenTransferState;
  detected_at: number | string;
}

function fromRaw(r: Raw): SeenTransferRow {
  return {
    id: r.id,
    chain: r.chain_caip2,
    asset: r.asset_caip19,
    address: r.address,
    paymentId: r.payment_id,
    txId: r.tx_id,
    position: Number(r.position),
    from: r.from_address,
    amount: BigInt(r.amount),
    blockNumber: r.block_number === null ? null : BigInt(r.block_number),
    blockHash: r.block_hash,
    blockTime: r.block_time === null ? null : Number(r.block_time),
    state: r.state,
    detectedAt: Number(r.detected_at),
  };
}

/**
 * Records transfers once per (chain, transaction, position): a rescan changes nothing, except that a transfer seen
 * again after it was reorged out (the same transaction mined again at the same position) is watched again, in its
 * new block. Answers how many were new.
 */
export async function recordSeenTransfers(db: Knex | Knex.Transaction, rows: SeenTransferRow[]): Promise<number> {
  let written = 0;
  for (const t of rows) {
    const inserted = (await db('deposit_transfers')
      .insert({
        id: t.id,
        chain_caip2: t.chain,
        asset_caip19: t.asset,
        address: t.address,
        payment_id: t.paymentId,
        tx_id: t.txId,
        position: t.position,
        from_address: t.from,
        amount: t.amount.toString(),
        block_number: t.blockNumber === null ? null : t.blockNumber.toString(),
        block_hash: t.blockHash,
        block_time: t.blockTime,
        state: t.state,
        detected_at: t.detectedAt,
      })
      .onConflict(['chain_caip2', 'tx_id', 'position'])
      .ignore()
      .returning('id')) as unknown[];
    written += inserted.length;
    if (inserted.length === 0) {
      await db('deposit_transfers')
        .where({ chain_caip2: t.chain, tx_id: t.txId, position: t.position, state: 'reorged' })
        .whereNot({ block_hash: t.blockHash })
        .update({
          state: 'seen',
          block_number: t.blockNumber === null ? null : t.blockNumber.toString(),
          block_hash: t.blockHash,
          block_time: t.blockTime,
        });
    }
  }
  return written;
}

/** Transfers on `chain` still watched (not final, not reorged), oldest first, at most `limit`. */
export async function listWatchedTransfers(
  db: Knex | Knex.Transaction,
  chain: string,
  limit: number,
): Promise<SeenTransferRow[]> {
  const rows = (await db('deposit_transfers')
    .where({ chain_caip2: chain, state: 'seen' })
    .orderBy([{ column: 'detected_at' }, { column: 'id' }])
    .limit(limit)) as Raw[];
  return rows.map(fromRaw);
}

/** A payment's transfers on `chain` in chain order (block, then position); reorged ones included. */
export async function listTransfersOfPayment(
  db: Knex | Knex.Transaction,
  paymentId: string,
  chain: string,
): Promise<SeenTransferRow[]> {
  const rows = (await db('deposit_transfers').where({ payment_id: paymentId, chain_caip2: chain })) as Raw[];
  return rows.map(fromRaw).sort(byChainOrder);
}

/** Chain order: block number, then position; transfers without a block last. */
export function byChainOrder(a: SeenTransferRow, b: SeenTransferRow): number {
  const ab = a.blockNumber ?? BigInt(Number.MAX_SAFE_INTEGER);
  const bb = b.blockNumber ?? BigInt(Number.MAX_SAFE_INTEGER);
  if (ab !== bb) return ab < bb ? -1 : 1;
  return a.position - b.position;
}

/** Moves a watched transfer to `state`; answers whether it was still watched (a concurrent scan may have moved it). */
export async function settleSeenTransfer(
  db: Knex | Knex.Transaction,
  id: string,
  state: 'final' | 'reorged',
): Promise<boolean> {
  return (await db('deposit_transfers').where({ id, state: 'seen' }).update({ state })) === 1;
}

/**
 * The deposit addresses on `chain` detection watches: of payments still open (requires_action, processing), and of
 * those that ended at or after `endedSince` (ms), so a late or repeated transfer to them is still recorded for refund.
 */
export async function watchedDepositAddresses(
  db: Knex | Knex.Transaction,
  chain: string,
  endedSince: number,
): Promise<{ address: string; paymentId: string }[]> {
  const rows = (await watchedAddressQuery(db, chain, endedSince).select('d.address', 'd.payment_id')) as {
    address: string;
    payment_id: string;
  }[];
  return rows.map((r) => ({ address: r.address, paymentId: r.payment_id }));
}

function watchedAddressQuery(db: Knex | Knex.Transaction, chain: string, endedSince: number) {
  return db('deposit_addresses as d')
    .join('payments as p', 'p.id', 'd.payment_id')
    .where('d.chain_caip2', chain)
    .andWhere((q) =>
      q.whereIn('p.status', ['requires_action', 'processing']).orWhere('p.updated_at', '>=', endedSince),
    );
}

/**
 * Whether a chain has anything to scan for: an address `watchedDepositAddresses` would answer, or a transfer still
 * watched (not final, not reorged). Two indexed existence checks, run before a scan is queued.
 */
export async function hasDepositWork(db: Knex | Knex.Transaction, chain: string, endedSince: number): Promise<boolean> {
  const transfer = await db('deposit_transfers').where({ chain_caip2: chain, state: 'seen' }).first('id');
  if (transfer) return true;
  return (await watchedAddressQuery(db, chain, endedSince).first('d.address')) !== undefined;
}

/** The deposit address of a payment on a chain, if it has one. */
export async function depositAddressOf(
  db: Knex | Knex.Transaction,
  paymentId: string,
  chain: string,
): Promise<string | null> {
  const row = (await db('deposit_addresses').where({ payment_id: paymentId, chain_caip2: chain }).first('address')) as
    { address: string } | undefined;
  return row?.address ?? null;
}

/** How many transfers to the payment's deposit addresses count (seen or final; reorged ones never paid). */
export async function receivedTransfers(db: Knex | Knex.Transaction, paymentId: string): Promise<number> {
  const row = (await db('deposit_transfers')
    .where({ payment_id: paymentId })
    .whereNot({ state: 'reorged' })
    .count({ n: '*' })
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
