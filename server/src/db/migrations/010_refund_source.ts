import type { Knex } from 'knex';

/**
 * What an on-chain refund draws on (docs/decisions.md §22.12): `payment`, the payment's own money owed to the merchant
 * (its `refunded` entries take from the merchant's unpaid balance), or `excess`, what the buyer sent beyond what the
 * payment took (an overpayment, a late payment: its `excess_refunded` entries take from that excess only). Existing
 * refunds were all of the payment.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('onchain_refunds', (t) => {
    t.string('source', 16).notNullable().defaultTo('payment');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('onchain_refunds', (t) => {
    t.dropColumn('source');
  });
}
