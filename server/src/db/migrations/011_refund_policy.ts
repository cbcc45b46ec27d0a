import type { Knex } from 'knex';

/**
 * Refund policy (docs/decisions.md §22.13): a merchant API key may send refunds that need an owner's say (to a claim
 * link, or above the owner threshold) only when an owner allowed it at creation; every key before this migration
 * and every key created without the flag may not. An on-chain refund keeps the network fee it was charged, so the
 * refund's answer can show it after the configured fee changes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.boolean('can_refund').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('onchain_refunds', (t) => {
    // Minor units of the refund's asset, as a decimal string like `amount`; null for refunds made before the fee.
    t.string('network_fee', 80).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('onchain_refunds', (t) => t.dropColumn('network_fee'));
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('can_refund'));
}
