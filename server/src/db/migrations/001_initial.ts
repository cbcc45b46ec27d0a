import type { Knex } from 'knex';

/**
 * Timestamps are integer milliseconds (bigint), amounts are decimal strings, sub-objects are JSON text: the same
 * column types behave identically on SQLite and PostgreSQL, and nothing is rounded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('partners', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('merchants', (t) => {
    t.string('id', 40).primary();
    t.string('partner_id', 40).notNullable().references('partners.id');
    t.string('name', 200).notNullable();
    t.string('icon_url', 2048).nullable();
    // {"kind":"base_plus_percent","base":{"unit":"iso4217/USD","value":"30"},"percent":{"numerator":"29","denominator":"1000"}}
    t.text('fee_config').nullable();
    // {"eip155:8453":"0x…","solana:5eykt…":"…"}: where the gateway sends the buyer's funds, per chain.
    t.text('settlement_addresses').notNullable().defaultTo('{}');
    t.boolean('collect_data').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.index(['partner_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    // merchant: partner secret key; wallet: gateway private key; app: gateway public app id.
    t.string('kind', 16).notNullable();
    t.string('mode', 8).notNullable();
    t.string('prefix', 20).notNullable();
    t.string('hash', 64).notNullable().unique();
    t.string('partner_id', 40).nullable().references('partners.id');
    t.string('label', 200).nullable();
    t.string('pinned_version', 10).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['prefix']);
  });

  await knex.schema.createTable('payments', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.boolean('live').notNullable();
    t.string('status', 20).notNullable();
    t.integer('state_version').notNullable();
    t.string('reference_id', 255).notNullable();
    t.string('amount_unit', 300).notNullable();
    t.string('amount_value', 78).notNullable();
    t.string('success_url', 2048).nullable();
    t.string('error_url', 2048).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    for (const stage of ['processing', 'success', 'failed', 'cancelled', 'expired', 'settled', 'refunded']) {
      t.text(stage).nullable();
    }
    t.index(['merchant_id', 'live', 'created_at', 'id'], 'payments_list_idx');
    t.index(['status', 'expires_at'], 'payments_expiry_idx');
  });

  // The transactional outbox: every state change writes its event here in the same transaction.
  await knex.schema.createTable('events', (t) => {
    t.string('id', 40).primary();
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.string('merchant_id', 40).notNullable();
    t.boolean('live').notNullable();
    t.string('type', 40).notNullable();
    t.integer('state_version').notNullable();
    t.bigInteger('created_at').notNullable();
    t.text('payload').notNullable();
    // One event per version: a lost race can never write a duplicate or leave a gap.
    t.unique(['payment_id', 'state_version']);
    t.index(['merchant_id', 'live', 'created_at']);
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('merchant_id', 40).notNullable();
    t.boolean('live').notNullable();
    t.string('key', 255).notNullable();
    t.string('request_hash', 64).notNullable();
    // null while the first request is in flight.
    t.integer('response_status').nullable();
    t.text('response_body').nullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['merchant_id', 'live', 'key']);
    t.index(['created_at']);
  });

  // Jobs of the in-process runner (SQLite). On PostgreSQL graphile-worker keeps its own tables.
  await knex.schema.createTable('jobs', (t) => {
    t.increments('id').primary();
    t.string('task', 100).notNullable();
    t.text('payload').notNullable();
    t.string('job_key', 200).nullable().unique();
    t.bigInteger('run_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(25);
    t.bigInteger('locked_until').nullable();
    t.text('last_error').nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['run_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['jobs', 'idempotency_keys', 'events', 'payments', 'api_keys', 'merchants', 'partners']) {
    await knex.schema.dropTableIfExists(table);
  }
}
