import type { Knex } from 'knex';

/**
 * Direct settlement (docs/decisions.md §22.1): each payment keeps the settlement mode its merchant had when it was
 * created, so a merchant switching modes never changes how a payment already offered to a buyer is paid or settled.
 * Payments created before this migration were all direct.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.string('settlement_mode', 16).notNullable().defaultTo('direct');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => t.dropColumn('settlement_mode'));
}
