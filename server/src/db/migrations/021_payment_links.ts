import type { Knex } from 'knex';
import { createIndexConcurrently, dropIndexConcurrently } from '../concurrentIndex.js';

/**
 * Payment links (issue 35 §2, docs/decisions.md §30.5): a reusable link a merchant shares (`/l/{linkId}`), each
 * visit of which creates a payment. The price is fixed (`amount_value`, per unit when the buyer may change the
 * quantity) or chosen by the buyer between `min_amount` and `max_amount`; amounts are decimal strings of minor
 * units, as on payments. `uses` counts the payments created from the link, in the transaction that inserts each,
 * under the condition `uses < max_uses`, so concurrent visits never pass the limit (§30.6).
 *
 * `payments.link_id` is the link a payment came from (a snapshot field). Its index is partial: most payments have
 * no link, and the link's totals and payment list read only those that have one. `payments` may hold millions of
 * rows, so the index is built CONCURRENTLY (`createIndexConcurrently`): this migration runs outside a transaction,
 * like 016 and 022, and every step is safe to run again after a failure halfway.
 */
export const config = { transaction: false };

const INDEX = 'payments_link_idx';

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('payment_links')))
    await knex.schema.createTable('payment_links', (t) => {
      t.string('id', 40).primary();
      t.string('merchant_id', 40).notNullable().references('id').inTable('merchants');
      t.boolean('live').notNullable();
      t.string('currency', 16).notNullable();
      t.string('amount_value', 16).nullable();
      t.string('min_amount', 16).nullable();
      t.string('max_amount', 16).nullable();
      t.boolean('quantity_adjustable').notNullable().defaultTo(false);
      t.integer('max_quantity').nullable();
      t.text('description').nullable();
      t.text('line_items').nullable();
      t.text('metadata').nullable();
      t.text('success_url').nullable();
      t.text('cancel_url').nullable();
      t.bigInteger('expires_at').nullable();
      t.integer('max_uses').nullable();
      t.integer('uses').notNullable().defaultTo(0);
      t.boolean('active').notNullable().defaultTo(true);
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.index(['merchant_id', 'live', 'created_at', 'id'], 'payment_links_list_idx');
    });
  if (!(await knex.schema.hasColumn('payments', 'link_id')))
    await knex.schema.alterTable('payments', (t) => {
      t.string('link_id', 40).nullable();
    });
  await createIndexConcurrently(knex, INDEX, 'ON payments (link_id, created_at, id) WHERE link_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexConcurrently(knex, INDEX);
  if (await knex.schema.hasColumn('payments', 'link_id'))
    await knex.schema.alterTable('payments', (t) => {
      t.dropColumn('link_id');
    });
  await knex.schema.dropTableIfExists('payment_links');
}
