import type { Knex } from 'knex';

/**
 * Brings the delivery table in line with the dashboard contract:
 *
 * - `trigger` says what created a delivery (`event`, `resend`, `replay`, `test`), which the dashboard shows and
 *   filters on.
 * - The contract's delivery statuses are `pending`, `delivered` and `failed`; a delivery abandoned because its
 *   endpoint was disabled or deleted is `failed`, so the database keeps no fourth status that the wire would have to
 *   translate (and that a `status=failed` filter would miss).
 * - `live` is the mode of the endpoint a delivery was made for, so a key sees the deliveries of its mode, test events
 *   sent to the live endpoint included (their payload says `live: false`).
 * - Deliveries are listed per merchant and mode, newest first, across the endpoints the merchant ever had.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.string('trigger', 12).notNullable().defaultTo('event');
    t.index(['merchant_id', 'live', 'created_at', 'id'], 'webhook_deliveries_mode_list_idx');
  });
  // Before this migration only test events (and resends of them) carried their own payload.
  await knex('webhook_deliveries').whereNotNull('payload').update({ trigger: 'test' });
  await knex('webhook_deliveries').where({ status: 'abandoned' }).update({ status: 'failed' });
  for (const mode of ['test', 'live'] as const) {
    await knex('webhook_deliveries')
      .whereIn('endpoint_id', knex('webhook_endpoints').select('id').where({ mode }))
      .update({ live: mode === 'live' });
  }
  // Test events used to be stored without a payment id; the contract requires the sample id their payload carries.
  const orphans = (await knex('webhook_deliveries').select('id', 'payload').whereNull('payment_id')) as {
    id: string;
    payload: string | null;
  }[];
  for (const row of orphans) {
    const paymentId = row.payload
      ? (JSON.parse(row.payload) as { data?: { payment_id?: string } }).data?.payment_id
      : undefined;
    if (paymentId) await knex('webhook_deliveries').where({ id: row.id }).update({ payment_id: paymentId });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['merchant_id', 'live', 'created_at', 'id'], 'webhook_deliveries_mode_list_idx');
    t.dropColumn('trigger');
  });
}
