import type { Knex } from 'knex';

/**
 * The people side of the dashboard (docs/decisions.md §21): users and their roles per merchant, server-side sessions,
 * TOTP second factors with recovery codes, invitations, login throttling and the audit log; and the API keys the
 * dashboard manages. Personal data (emails, client addresses, user agents) is sealed with the SecretBox; emails are
 * found by a keyed hash, so the database never holds a readable address. Secrets (passwords, session and invitation
 * tokens, recovery codes) are stored only as hashes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.string('id', 40).primary();
    // HMAC-SHA256 of the normalised (trimmed, lower-cased) email under a key derived from the encryption key.
    t.string('email_hash', 64).notNullable().unique();
    t.text('email_sealed').notNullable();
    t.string('password_hash', 300).notNullable();
    // The TOTP secret once enrolment is confirmed, and the one awaiting confirmation; both sealed.
    t.text('totp_secret_sealed').nullable();
    t.text('totp_pending_sealed').nullable();
    t.bigInteger('totp_enabled_at').nullable();
    // The last accepted TOTP time step: a code is accepted once (RFC 6238 §5.2).
    t.bigInteger('totp_last_step').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('disabled_at').nullable();
  });

  await knex.schema.createTable('memberships', (t) => {
    t.string('user_id', 40).notNullable().references('users.id');
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    // owner | developer | viewer
    t.string('role', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['user_id', 'merchant_id']);
    t.index(['merchant_id']);
  });

  await knex.schema.createTable('recovery_codes', (t) => {
    t.string('user_id', 40).notNullable().references('users.id');
    t.string('code_hash', 64).notNullable();
    t.bigInteger('used_at').nullable();
    t.primary(['user_id', 'code_hash']);
  });

  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.string('id', 40).primary();
    // SHA-256 of the cookie's token.
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_id', 40).notNullable().references('users.id');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_seen_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.text('ip_sealed').nullable();
    t.text('user_agent_sealed').nullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['user_id']);
  });

  await knex.schema.createTable('invitations', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('role', 16).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('created_by', 40).notNullable().references('users.id');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('accepted_at').nullable();
    t.string('accepted_by', 40).nullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['merchant_id']);
  });

  // Failed sign-ins per account (keyed hash of the email, whether or not it exists) and per client address.
  await knex.schema.createTable('login_throttle', (t) => {
    t.string('key', 80).primary();
    t.integer('failures').notNullable();
    t.bigInteger('window_started_at').notNullable();
    t.bigInteger('locked_until').nullable();
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable();
    // The mode the change addressed (test | live), null for merchant-wide changes (team, settings).
    t.string('mode', 8).nullable();
    t.bigInteger('at').notNullable();
    // user | api_key
    t.string('actor_kind', 16).notNullable();
    t.string('actor_id', 40).notNullable();
    t.string('action', 80).notNullable();
    t.string('target', 300).nullable();
    // JSON of non-secret details; sealed, because it may name people (an invited email).
    t.text('details_sealed').nullable();
    t.text('ip_sealed').nullable();
    t.index(['merchant_id', 'at', 'id'], 'audit_log_list_idx');
  });

  await knex.schema.alterTable('merchants', (t) => {
    t.boolean('require_two_factor').notNullable().defaultTo(false);
  });

  await knex.schema.alterTable('api_keys', (t) => {
    // Keys created in the dashboard act for one merchant only; null: a partner-wide key from `paygate admin`.
    t.string('merchant_id', 40).nullable();
    // Written at most once a minute per key, so a busy key costs no write per request.
    t.bigInteger('last_used_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('merchant_id');
    t.dropColumn('last_used_at');
  });
  await knex.schema.alterTable('merchants', (t) => t.dropColumn('require_two_factor'));
  for (const table of [
    'audit_log',
    'login_throttle',
    'invitations',
    'dashboard_sessions',
    'recovery_codes',
    'memberships',
    'users',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
