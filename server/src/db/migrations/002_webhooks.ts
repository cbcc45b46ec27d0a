import type { Knex } from 'knex';

/**
 * Webhook endpoints, deliveries and attempts. A delivery's schedule (next attempt, attempt count, lease) lives
 * here rather than only in the job queue, so a sweeper can recover work from a crashed worker without waiting for
 * graphile-worker's 4-hour lock expiry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('mode', 8).notNullable();
    t.string('url', 2048).notNullable();
    t.text('event_types').notNullable();
    t.boolean('enabled').notNullable();
    t.string('disabled_reason', 200).nullable();
    // AES-256-GCM, sealed under PAYGATE_ENCRYPTION_KEY and bound to the endpoint id.
    t.text('secret_sealed').notNullable();
    t.text('previous_secret_sealed').nullable();
    t.bigInteger('previous_secret_expires_at').nullable();
    t.bigInteger('secret_rotated_at').notNullable();
    // Start of the current run of failed deliveries; any success clears it.
    t.bigInteger('failing_since').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('deleted_at').nullable();
  });
  // One live endpoint per merchant and mode; deleted ones do not count.
  await knex.raw(
    'CREATE UNIQUE INDEX webhook_endpoints_one_per_mode ON webhook_endpoints (merchant_id, mode) WHERE deleted_at IS NULL',
  );

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 40).primary();
    t.string('endpoint_id', 40).notNullable().references('webhook_endpoints.id');
    t.string('event_id', 40).notNullable();
    t.string('event_type', 40).notNullable();
    t.string('payment_id', 40).nullable();
    t.string('merchant_id', 40).notNullable();
    t.boolean('live').notNullable();
    // Test events from the dashboard have no outbox row; their envelope is kept here.
    t.text('payload').nullable();
    // pending → delivered | failed | abandoned (endpoint deleted or disabled).
    t.string('status', 12).notNullable();
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').nullable();
    t.bigInteger('lease_until').nullable();
    t.string('lease_owner', 40).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('delivered_at').nullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['status', 'next_attempt_at'], 'webhook_deliveries_due_idx');
    t.index(['endpoint_id', 'created_at'], 'webhook_deliveries_list_idx');
    t.index(['endpoint_id', 'event_id']);
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.increments('id').primary();
    t.string('delivery_id', 40).notNullable().references('webhook_deliveries.id');
    t.integer('attempt').notNullable();
    t.bigInteger('started_at').notNullable();
    t.integer('status').nullable();
    t.integer('latency_ms').notNullable();
    t.string('error', 500).nullable();
    t.text('response_body').nullable();
    t.boolean('delivered').notNullable();
    // One record per step of a delivery's schedule: a second worker can never log the same step twice.
    t.unique(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
