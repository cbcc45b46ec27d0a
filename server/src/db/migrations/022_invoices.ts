import type { Knex } from 'knex';
import { createIndexConcurrently, dropIndexConcurrently } from '../concurrentIndex.js';

/**
 * Invoices (issue 35 §3, docs/decisions.md §30.9–§30.12). An invoice's number comes from its merchant's sequence row
 * for the mode, allocated in the transaction that inserts the invoice, so numbers are gap-free and never repeat. Its
 * status is not stored: it is derived from its payments that succeeded (`payments.invoice_id`), its void time and the
 * clock. The buyer's name and email are sealed at rest (context `invoices.buyer_sealed:<id>`).
 *
 * `payments` may hold millions of rows: a nullable column without a default is a catalogue change on PostgreSQL, and
 * its index is partial (only invoice payments) and built CONCURRENTLY, so this migration runs outside a transaction
 * like 016_scale_indexes.ts, and every step is safe to run again after a failure halfway.
 */
export const config = { transaction: false };

const INDEX = 'payments_invoice_idx';

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('invoice_sequences'))) {
    await knex.schema.createTable('invoice_sequences', (t) => {
      t.string('merchant_id', 40).notNullable().references('merchants.id');
      t.boolean('live').notNullable();
      t.string('prefix', 20).notNullable();
      t.bigInteger('next_number').notNullable();
      t.primary(['merchant_id', 'live']);
    });
  }
  if (!(await knex.schema.hasTable('invoices'))) {
    await knex.schema.createTable('invoices', (t) => {
      t.string('id', 40).primary();
      t.string('merchant_id', 40).notNullable().references('merchants.id');
      t.boolean('live').notNullable();
      t.string('number', 40).notNullable();
      t.string('amount_unit', 300).notNullable();
      t.string('amount_value', 78).notNullable();
      t.text('line_items').notNullable();
      t.bigInteger('due_at').notNullable();
      t.text('buyer_sealed').nullable();
      t.text('notes').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('voided_at').nullable();
      t.unique(['merchant_id', 'live', 'number']);
      t.index(['merchant_id', 'live', 'created_at', 'id'], 'invoices_list_idx');
    });
  }
  if (!(await knex.schema.hasColumn('payments', 'invoice_id'))) {
    await knex.schema.alterTable('payments', (t) => {
      t.string('invoice_id', 40).nullable();
    });
  }
  await createIndexConcurrently(knex, INDEX, 'ON payments (invoice_id, status) WHERE invoice_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexConcurrently(knex, INDEX);
  if (await knex.schema.hasColumn('payments', 'invoice_id')) {
    await knex.schema.alterTable('payments', (t) => {
      t.dropColumn('invoice_id');
    });
  }
  await knex.schema.dropTableIfExists('invoices');
  await knex.schema.dropTableIfExists('invoice_sequences');
}
