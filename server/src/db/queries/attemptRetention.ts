import type { Knex } from 'knex';

/**
 * One batch of the webhook retention (webhooks/retention.ts): up to `limit` attempts started before `before`, oldest
 * first through `webhook_attempts_started_idx` (migration 016). Their deliveries are marked as pruned and the
 * attempts deleted by primary key in one short transaction, so no statement touches more than one batch of rows and
 * none takes a table lock. Answers how many attempts it removed.
 */
export async function pruneAttemptBatch(db: Knex, before: number, now: number, limit: number): Promise<number> {
  return db.transaction(async (trx) => {
    const rows = (await trx('webhook_attempts')
      .select('id', 'delivery_id')
      .where('started_at', '<', before)
      .orderBy(['started_at', 'id'])
      .limit(limit)) as { id: number | string; delivery_id: string }[];
    if (rows.length === 0) return 0;
    const deliveryIds = [...new Set(rows.map((r) => r.delivery_id))];
    await trx('webhook_deliveries')
      .whereIn('id', deliveryIds)
      .whereNull('attempts_pruned_at')
      .update({ attempts_pruned_at: now });
    await trx('webhook_attempts')
      .whereIn(
        'id',
        rows.map((r) => Number(r.id)),
      )
      .delete();
    return rows.length;
  });
}
