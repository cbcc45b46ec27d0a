import type { Knex } from 'knex';

/**
 * Two guards of collected settlement (docs/decisions.md §22.15):
 * - `settings`: facts about the installation a process checks at start. `deposit_seed_collection` holds the EVM
 *   collection address (`m/44'/60'/0'/0/0`) of the deposit seed the database was first started with: public, names
 *   the seed without revealing it, and a start with another seed is refused instead of deriving addresses nothing
 *   watches.
 * - `discrepancies_unwatched_once`: reconciliation records money standing at a deposit address beyond what the ledger
 *   knows (`unwatched_deposit`, no transaction known) once per payment, chain, asset and balance seen; every API
 *   process runs reconciliation, and their runs must not multiply the finding.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('settings', (t) => {
    t.string('key', 64).primary();
    t.text('value').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await knex.raw(
    "CREATE UNIQUE INDEX discrepancies_unwatched_once ON discrepancies (payment_id, kind, chain_caip2, asset_unit, received_value) WHERE kind = 'unwatched_deposit'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS discrepancies_unwatched_once');
  await knex.schema.dropTableIfExists('settings');
}
