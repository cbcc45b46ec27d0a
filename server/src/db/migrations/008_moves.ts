import type { Knex } from 'knex';

/**
 * Sweeps batch several deposits into one move (docs/decisions.md §22.4): each deposit transfer a sweep covers is
 * written here once (unique), in the transaction that plans the sweep, so the same funds are never planned twice,
 * even by two processes planning at once. A failed sweep's rows are deleted with its failure: its funds are swept
 * again by a later plan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sweep_transfers', (t) => {
    t.string('sweep_id', 40).notNullable().references('sweeps.id');
    t.string('transfer_id', 40).notNullable().references('deposit_transfers.id').unique();
    t.string('payment_id', 40).notNullable().references('payments.id');
    // The deposit address (a leg's source) and its key's derivation index.
    t.string('address', 64).notNullable();
    t.integer('derivation_index').notNullable();
    t.string('amount', 80).notNullable();
    t.primary(['sweep_id', 'transfer_id']);
    t.index(['payment_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sweep_transfers');
}
