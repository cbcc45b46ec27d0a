import type { Knex } from 'knex';

/**
 * The gateway's records:
 *
 * - `payment_claims`: what paid a payment (a transaction, or an authorization the relayer submits). `claim_key` is
 *   unique forever, so one transaction or authorization can pay at most one payment, whatever the application does;
 *   `payment_id` is unique too, so a payment is paid by one claim.
 * - `discrepancies`: money that moved but does not match a payment (late, over- or under-payments), for the operator.
 * - `collected_data`: the buyer's data-collection answers, sealed (AES-256-GCM) under PAYGATE_ENCRYPTION_KEY.
 * - `relayer_nonces`: the next nonce of each relayer account, locked while a relay is signed and sent, so relays
 *   from any number of processes never reuse or skip a nonce.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_claims', (t) => {
    t.string('id', 40).primary();
    t.string('payment_id', 40).notNullable().unique().references('payments.id');
    // e.g. `eip155:31337:auth:<token>:<from>:<nonce>` or `eip155:31337:tx:<from>:<nonce>`: the thing that can pay once.
    t.string('claim_key', 300).notNullable().unique();
    t.string('kind', 24).notNullable();
    t.string('chain_caip2', 80).notNullable();
    t.string('account_caip10', 200).notNullable();
    // The hash of the option token and of the results, so a repeated confirm is recognised as the same one.
    t.string('option_digest', 64).notNullable();
    t.string('results_digest', 64).notNullable();
    // The transaction that moves the funds, once known (a relayed authorization has none until it is sent).
    t.string('tx_id', 200).nullable();
    t.string('state', 16).notNullable();
    // Chain-specific details (amounts, recipient, nonce, block of confirm), JSON.
    t.text('details').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await knex.raw(
    'CREATE UNIQUE INDEX payment_claims_tx_id ON payment_claims (chain_caip2, tx_id) WHERE tx_id IS NOT NULL',
  );

  await knex.schema.createTable('discrepancies', (t) => {
    t.string('id', 40).primary();
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.string('kind', 24).notNullable();
    t.boolean('live').notNullable();
    t.string('chain_caip2', 80).notNullable();
    t.string('tx_id', 200).nullable();
    t.string('asset_unit', 200).notNullable();
    t.string('expected_value', 80).notNullable();
    t.string('received_value', 80).notNullable();
    t.text('note').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['created_at', 'id'], 'discrepancies_list_idx');
  });
  // Recording the same finding twice (a retried job) keeps one row.
  await knex.raw(
    'CREATE UNIQUE INDEX discrepancies_once ON discrepancies (payment_id, kind, chain_caip2, tx_id) WHERE tx_id IS NOT NULL',
  );

  await knex.schema.createTable('collected_data', (t) => {
    t.string('payment_id', 40).primary().references('payments.id');
    t.text('sealed').notNullable();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('relayer_nonces', (t) => {
    t.string('chain_caip2', 80).notNullable();
    t.string('address', 42).notNullable();
    t.bigInteger('next_nonce').notNullable();
    t.primary(['chain_caip2', 'address']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('relayer_nonces');
  await knex.schema.dropTable('collected_data');
  await knex.schema.dropTable('discrepancies');
  await knex.schema.dropTable('payment_claims');
}
