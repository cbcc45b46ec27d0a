import type { Knex } from 'knex';

/**
 * When the webhook retention job removed a delivery's attempts (docs/decisions.md §24.3): the API then says
 * `attemptsPruned: true` instead of showing an empty attempt list as if nothing had been tried. A nullable column
 * with no default is added without rewriting the table on PostgreSQL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.bigInteger('attempts_pruned_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => t.dropColumn('attempts_pruned_at'));
}
