import type { Knex } from 'knex';

/**
 * Merchant logos stored and served by Paygate (docs/decisions.md §26.23): one row per merchant with the cleaned
 * bytes, their type and size, and the SHA-256 the public URL is named by (`/logos/<sha256>.<ext>`), so a new logo
 * is a new URL and the old one may be cached forever. `merchants.icon_url` now holds only that path: the remote URLs
 * the settings used to accept were never shown (the checkout loads no image from another origin), so they are
 * cleared rather than fetched (a server fetching merchants' URLs would be a request forgery tool).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchant_logos', (t) => {
    t.string('merchant_id', 40).primary().references('merchants.id');
    t.string('sha256', 64).notNullable().index();
    t.string('content_type', 20).notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.binary('bytes').notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex('merchants').whereNotNull('icon_url').update({ icon_url: null });
}

export async function down(knex: Knex): Promise<void> {
  await knex('merchants').whereNotNull('icon_url').update({ icon_url: null });
  await knex.schema.dropTableIfExists('merchant_logos');
}
