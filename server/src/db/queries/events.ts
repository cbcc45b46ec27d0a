import type { Knex } from 'knex';
import { preparedReadAll } from '../connect.js';
import { dialectOf } from '../dialect.js';

export interface EventRow {
  id: string;
  payment_id: string;
  merchant_id: string;
  live: boolean;
  type: string;
  state_version: number;
  created_at: number;
  /** The envelope as JSON; '' when it is sealed in `payload_sealed` (webhooks/eventPayload.ts). */
  payload: string;
  /** The envelope sealed, for a payment with a buyer (docs/decisions.md §30.3); null otherwise. */
  payload_sealed?: string | null;
}

/** As insertPayments: any number of events in one fixed prepared statement on PostgreSQL. */
const insertEventsPg = preparedReadAll(
  'paygate_insert_events',
  `insert into events (id, payment_id, merchant_id, live, type, state_version, created_at, payload, payload_sealed)
   select * from unnest(?::text[], ?::text[], ?::text[], ?::boolean[], ?::text[], ?::int[], ?::bigint[], ?::text[],
     ?::text[])`,
);

export async function insertEvents(db: Knex | Knex.Transaction, rows: EventRow[]): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    const column = <K extends keyof EventRow>(k: K) => rows.map((r) => r[k]);
    await insertEventsPg(db, [
      column('id'),
      column('payment_id'),
      column('merchant_id'),
      column('live'),
      column('type'),
      column('state_version'),
      column('created_at'),
      column('payload'),
      rows.map((r) => r.payload_sealed ?? null),
    ]);
    return;
  }
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
