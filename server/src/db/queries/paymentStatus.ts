import type { Knex } from 'knex';
import { isPaymentId } from '../../ids.js';
import type { components } from '../../generated/gateway.js';
import { Combiner } from '../combiner.js';
import { preparedReadAll } from '../connect.js';
import { dialectOf } from '../dialect.js';

type PaymentStatus = components['schemas']['PaymentStatus'];

/** What a status answer needs of a payment, and what decides whether the caller may see it. */
export interface PaymentStatusRow {
  id: string;
  merchant_id: string;
  live: boolean;
  status: PaymentStatus;
  expires_at: number;
}

export type RawStatusRow = Omit<PaymentStatusRow, 'live'> & { live: boolean | number };

/**
 * The read behind status polling, the most frequent request of an integration: the five columns it needs, as a
 * prepared statement (db/connect.ts), since knex's query building costs more than the read; everything else reads
 * the whole row through queries/payments.ts. Polls that arrive together share one statement (db/combiner.ts):
 * under load a poll is mostly per-statement cost
 * (a round trip on PostgreSQL; on SQLite taking the connection and stepping a statement), not the read itself. The
 * ids go as one array parameter, so each dialect has one fixed statement whatever their number.
 */
const readStatusesPg = preparedReadAll<RawStatusRow>(
  'paygate_payment_statuses',
  'select id, merchant_id, live, status, expires_at from payments where id = any(?::text[])',
);
const readStatusesSqlite = preparedReadAll<RawStatusRow>(
  'paygate_payment_statuses',
  'select id, merchant_id, live, status, expires_at from payments where id in (select value from json_each(?))',
);
/** Combined status reads of one database (one per runtime: runtime.ts builds it). */
export interface StatusReads {
  read(id: string): Promise<RawStatusRow | undefined>;
}

export function createStatusReads(db: Knex): StatusReads {
  const read =
    dialectOf(db) === 'postgres'
      ? (ids: string[]) => readStatusesPg(db, [ids])
      : (ids: string[]) => readStatusesSqlite(db, [JSON.stringify(ids)]);
  const combiner = new Combiner<string, RawStatusRow | undefined>(
    async (ids) => {
      const rows = new Map((await read(ids)).map((r) => [r.id, r]));
      return ids.map((i) => rows.get(i));
    },
    { max: 64 },
  );
  return { read: (id) => combiner.add(id) };
}

/**
 * Outside any transaction: a combined read runs on a pooled connection, so it cannot see uncommitted writes. An id
 * that is not of an issued id's form names no payment and joins no read (ids.ts, isPaymentId).
 */
export async function findPaymentStatus(reads: StatusReads, id: string): Promise<PaymentStatusRow | null> {
  if (!isPaymentId(id)) return null;
  const raw = await reads.read(id);
  if (!raw) return null;
  return {
    id: raw.id,
    merchant_id: raw.merchant_id,
    // SQLite has no boolean type and answers 0/1.
    live: raw.live === true || raw.live === 1,
    status: raw.status,
    expires_at: Number(raw.expires_at),
  };
}
