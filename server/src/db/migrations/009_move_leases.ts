import type { Knex } from 'knex';

/**
 * Leases on moves (docs/decisions.md §22.10): a run of `settlement.move` holds its row's lease while it works and
 * renews it, so a second run of the same move waits, and a worker killed mid-move is noticed when its lease passes
 * (graphile-worker would keep the dead worker's job locked for 4 hours). One row per move being run; the move's id
 * (`swp_`, `po_`, `rfd_`) is unique across its three tables.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('move_leases', (t) => {
    t.string('move_id', 40).primary();
    t.string('kind', 10).notNullable();
    t.string('owner', 40).notNullable();
    t.bigInteger('lease_until').notNullable();
    t.index(['lease_until']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('move_leases');
}
