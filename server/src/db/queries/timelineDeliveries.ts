import type { Knex } from 'knex';
import { attemptFromRaw, deliveryFromRaw, type AttemptRow, type DeliveryRow } from './webhooks.js';

type Db = Knex | Knex.Transaction;

/**
 * One page of a payment's deliveries for its timeline, oldest first (by creation, then id), test events left out
 * (they belong to no payment's history). Read through `webhook_deliveries_payment_idx` (migration 016).
 */
export async function listPaymentDeliveries(
  db: Db,
  q: {
    merchantId: string;
    live: boolean;
    paymentId: string;
    startingAfter?: { created_at: number; id: string };
    limit: number;
  },
): Promise<DeliveryRow[]> {
  const query = db('webhook_deliveries')
    .where({ merchant_id: q.merchantId, live: q.live, payment_id: q.paymentId })
    .andWhereNot('trigger', 'test');
  if (q.startingAfter) {
    const { created_at, id } = q.startingAfter;
    query.andWhere((w) =>
      w
        .where('created_at', '>', created_at)
        .orWhere((w2) => w2.where('created_at', created_at).andWhere('id', '>', id)),
    );
  }
  const rows = (await query.orderBy(['created_at', 'id']).limit(q.limit)) as Record<string, unknown>[];
  return rows.map(deliveryFromRaw);
}

/** The attempts of several deliveries in one statement (a timeline page), each delivery's in attempt order. */
export async function listAttemptsOf(db: Db, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = (await db('webhook_attempts')
    .whereIn('delivery_id', deliveryIds)
    .orderBy(['delivery_id', 'attempt'])) as Record<string, unknown>[];
  for (const row of rows) byDelivery.get(row.delivery_id as string)!.push(attemptFromRaw(row));
  return byDelivery;
}
