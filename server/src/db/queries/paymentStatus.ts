import type { Knex } from 'knex';
import type { PaymentStatus } from '../../payments/stateMachine.js';
import { preparedRead } from '../connect.js';

/** What a status answer needs of a payment, and what decides whether the caller may see it. */
export interface PaymentStatusRow {
  id: string;
  merchant_id: string;
  live: boolean;
  status: PaymentStatus;
  expires_at: number;
}

/**
 * The read behind status polling, the most frequent request of an integration: the five columns it needs, as a
 * prepared statement (db/connect.ts), since knex's query building costs more than the read. Everything else reads
 * the whole row through queries/payments.ts.
 */
const readPaymentStatus = preparedRead<Omit<PaymentStatusRow, 'live'> & { live: boolean | number }>(
  'paygate_payment_status',
  'select id, merchant_id, live, status, expires_at from payments where id = ?',
);

export async function findPaymentStatus(db: Knex | Knex.Transaction, id: string): Promise<PaymentStatusRow | null> {
  const raw = await readPaymentStatus(db, [id]);
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
