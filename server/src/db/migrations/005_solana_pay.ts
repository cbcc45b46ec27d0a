import type { Knex } from 'knex';

/**
 * `solana_pay_requests`: the transactions handed out to Solana Pay wallets, which sign and send them themselves.
 * The watcher needs the option each was built from to find it on chain (by its reference) and check it as confirm
 * would; `done` marks a request whose blockhash expired and was searched once after that, so it can no longer land
 * unseen and is not searched again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('solana_pay_requests', (t) => {
    t.string('reference', 44).primary();
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.string('chain_caip2', 80).notNullable();
    // The signed option token (gateway/optionToken.ts); it alone rebuilds the transaction.
    t.text('option_id').notNullable();
    t.bigInteger('last_valid_block_height').notNullable();
    t.boolean('done').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.index(['payment_id', 'done'], 'solana_pay_requests_payment_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('solana_pay_requests');
}
