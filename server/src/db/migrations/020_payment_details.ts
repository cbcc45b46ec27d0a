import type { Knex } from 'knex';

/**
 * Issue 35 §1 (docs/decisions.md §30.1–§30.4): payments carry what was sold.
 *
 * - `payments`: `description`, `line_items` (JSON array, snake_case as the snapshot carries it), `metadata` (JSON
 *   object) and `buyer_sealed` (the buyer's email/name, sealed like other personal data, §16). All nullable without a
 *   default, so adding them rewrites no row on either database (instant at 1M payments). On the payment row itself
 *   so that building a snapshot needs no second read.
 * - `events.payload_sealed`: when a payment has a buyer, its events' envelopes would hold the buyer in plaintext for
 *   as long as the history is kept; they are sealed here instead, and `payload` holds only a marker (§30.3).
 * - `payment_search_terms`: the words of a payment's description and metadata values, so the dashboard's `q` is an
 *   index lookup per word instead of a scan over the merchant's payments (§30.4). Written with the payment, never
 *   changed (both fields are fixed at creation).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.text('description').nullable();
    t.text('line_items').nullable();
    t.text('metadata').nullable();
    t.text('buyer_sealed').nullable();
  });
  await knex.schema.alterTable('events', (t) => {
    t.text('payload_sealed').nullable();
  });
  await knex.schema.createTable('payment_search_terms', (t) => {
    t.string('merchant_id', 40).notNullable();
    t.boolean('live').notNullable();
    t.string('term', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.string('payment_id', 40).notNullable();
    // Newest first within one word, like the payments list (payments_list_idx), so a page is a range read.
    t.primary(['merchant_id', 'live', 'term', 'created_at', 'payment_id']);
    t.index(['payment_id'], 'payment_search_terms_payment_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_search_terms');
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('payload_sealed');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('description');
    t.dropColumn('line_items');
    t.dropColumn('metadata');
    t.dropColumn('buyer_sealed');
  });
}
