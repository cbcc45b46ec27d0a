import type { Knex } from 'knex';

export interface EventRow {
  id: string;
  payment_id: string;
  merchant_id: string;
  live: boolean;
  type: string;
  state_version: number;
  created_at: number;
  payload: string;
}

export async function insertEvents(db: Knex | Knex.Transaction, rows: EventRow[]): Promise<void> {
  await db('events').insert(rows);
}

export async function listEventsForPayment(db: Knex, paymentId: string): Promise<EventRow[]> {
  const rows = (await db('events').where({ payment_id: paymentId }).orderBy('state_version')) as (Omit<
    EventRow,
    'live'
  > & { live: boolean | number })[];
  return rows.map((r) => ({
    ...r,
    live: r.live === true || r.live === 1,
    state_version: Number(r.state_version),
    created_at: Number(r.created_at),
  }));
}
