import type { Knex } from 'knex';

/**
 * Point-of-sale terminals (docs/decisions.md §30.13): a terminal belongs to one merchant and mode, keeps its POS
 * access key only as a SHA-256 hash, and a small catalogue and its tip buttons as JSON text (read whole, never
 * queried inside). `pos_payments` names the terminal of each payment it created, so a key follows its own sales only,
 * without a column on `payments` (whose insert is the hot path of every create).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pos_terminals', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.boolean('live').notNullable();
    t.string('name', 100).notNullable();
    t.string('currency', 3).notNullable();
    t.string('key_prefix', 20).notNullable();
    t.string('key_hash', 64).notNullable().unique();
    t.text('catalogue').notNullable();
    t.text('tip_percents').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['merchant_id', 'live', 'created_at']);
  });
  await knex.schema.createTable('pos_payments', (t) => {
    t.string('payment_id', 40).primary().references('payments.id');
    t.string('pos_id', 40).notNullable().references('pos_terminals.id');
    // What the screen shows beside the amount; the amount itself is the payment's.
    t.string('subtotal', 20).notNullable();
    t.string('tip', 20).notNullable();
    t.index(['pos_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('pos_payments');
  await knex.schema.dropTableIfExists('pos_terminals');
}
