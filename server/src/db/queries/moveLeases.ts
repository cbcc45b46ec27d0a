/** Leases on moves being run (migration 009; settlement/moves.ts): who runs a move, and until when. */
import type { Knex } from 'knex';
import type { MoveKind } from './moveRows.js';

/** Takes the move's lease for `owner` unless another owner's lease has not passed; answers whether it did. */
export async function claimMoveLease(
  db: Knex | Knex.Transaction,
  lease: { kind: MoveKind; id: string; owner: string; now: number; leaseMs: number },
): Promise<boolean> {
  const rows = (await db.raw(
    `INSERT INTO move_leases (move_id, kind, owner, lease_until) VALUES (?, ?, ?, ?)
     ON CONFLICT (move_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
     WHERE move_leases.lease_until < ?
     RETURNING move_id`,
    [lease.id, lease.kind, lease.owner, lease.now + lease.leaseMs, lease.now],
  )) as { rows?: unknown[] } | unknown[];
  return (Array.isArray(rows) ? rows : (rows.rows ?? [])).length > 0;
}

/** Extends the lease while its owner still holds it; answers whether it did. */
export async function renewMoveLease(
  db: Knex | Knex.Transaction,
  id: string,
  owner: string,
  until: number,
): Promise<boolean> {
  return (await db('move_leases').where({ move_id: id, owner }).update({ lease_until: until })) > 0;
}

/** Gives the lease up (in the transaction that hands the move to its next job, so that job can take it). */
export async function releaseMoveLease(db: Knex | Knex.Transaction, id: string, owner: string): Promise<void> {
  await db('move_leases').where({ move_id: id, owner }).delete();
}

export interface PassedMoveLease {
  kind: MoveKind;
  id: string;
  owner: string;
  leaseUntil: number;
}

/** Leases that passed without being given up: their owner died or stalled past them. */
export async function passedMoveLeases(db: Knex | Knex.Transaction, now: number): Promise<PassedMoveLease[]> {
  const rows = (await db('move_leases')
    .where('lease_until', '<', now)
    .orderBy('lease_until')
    .limit(500)
    .select('move_id', 'kind', 'owner', 'lease_until')) as {
    move_id: string;
    kind: MoveKind;
    owner: string;
    lease_until: number | string;
  }[];
  return rows.map((r) => ({ kind: r.kind, id: r.move_id, owner: r.owner, leaseUntil: Number(r.lease_until) }));
}

/** Drops a passed lease unless someone took it since; answers whether it did. */
export async function dropPassedMoveLease(db: Knex | Knex.Transaction, lease: PassedMoveLease): Promise<boolean> {
  const count = await db('move_leases')
    .where({ move_id: lease.id, owner: lease.owner, lease_until: lease.leaseUntil })
    .delete();
  return count > 0;
}
