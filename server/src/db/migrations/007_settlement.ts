import type { Knex } from 'knex';

/**
 * Settlement (docs/decisions.md §22): the merchant's settlement mode, per-payment deposit addresses and the transfers
 * seen to them, the scan cursors of detection, sweeps, payouts and on-chain refunds, and the ledger every balance is
 * computed from. Amounts are decimal strings of integer minor units (a token of 18 decimals overflows SQLite's 64-bit
 * integers), summed with BigInt in code.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    // direct: the buyer pays the merchant's address; collected: the operator's deposit address, paid out net of fees.
    t.string('settlement_mode', 16).notNullable().defaultTo('direct');
  });

  // One derivation index per payment that offers deposit addresses; every namespace derives its key from it.
  await knex.schema.createTable('deposit_accounts', (t) => {
    t.increments('derivation_index').primary();
    t.string('payment_id', 40).notNullable().unique().references('payments.id');
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('deposit_addresses', (t) => {
    t.string('chain_caip2', 64).notNullable();
    // Canonical form (EIP-55 checksummed on EVM chains, base58 on Solana): the owner of the deposit.
    t.string('address', 64).notNullable();
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.integer('derivation_index').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['chain_caip2', 'address']);
    t.unique(['payment_id', 'chain_caip2']);
  });

  // Every transfer seen to a deposit address, whatever it pays: the detection's record, kept through reorgs.
  await knex.schema.createTable('deposit_transfers', (t) => {
    t.string('id', 40).primary();
    t.string('chain_caip2', 64).notNullable();
    t.string('asset_caip19', 160).notNullable();
    t.string('address', 64).notNullable();
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.string('tx_id', 128).notNullable();
    // The log index on EVM chains; the instruction index on Solana: what makes a transfer unique within its transaction.
    t.integer('position').notNullable();
    t.string('from_address', 64).nullable();
    t.string('amount', 80).notNullable();
    t.bigInteger('block_number').nullable();
    t.string('block_hash', 128).nullable();
    t.bigInteger('block_time').nullable();
    // seen | final | reorged
    t.string('state', 16).notNullable();
    t.bigInteger('detected_at').notNullable();
    t.unique(['chain_caip2', 'tx_id', 'position']);
    t.index(['payment_id']);
  });

  // Where detection resumes on each chain (the next block to scan), so a restart neither misses nor repeats a range.
  await knex.schema.createTable('scan_cursors', (t) => {
    t.string('chain_caip2', 64).primary();
    t.string('next_block', 40).notNullable();
    t.bigInteger('updated_at').notNullable();
  });

  await knex.schema.createTable('sweeps', (t) => {
    t.string('id', 40).primary();
    t.string('chain_caip2', 64).notNullable();
    t.string('asset_caip19', 160).notNullable();
    t.string('from_address', 64).notNullable();
    t.string('to_address', 64).notNullable();
    t.string('amount', 80).notNullable();
    // planned | sent | final | failed
    t.string('state', 16).notNullable();
    t.string('tx_id', 128).nullable();
    // What makes a resend the same move (an EIP-3009 nonce, a signed transaction): written before anything is sent.
    t.text('details').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['state']);
  });

  await knex.schema.createTable('payouts', (t) => {
    t.string('id', 40).primary();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.boolean('live').notNullable();
    t.string('chain_caip2', 64).notNullable();
    t.string('asset_caip19', 160).notNullable();
    // What the payments covered sum to (gross), the fee to the treasury, and what the merchant receives (net).
    t.string('gross', 80).notNullable();
    t.string('fee', 80).notNullable();
    t.string('net', 80).notNullable();
    t.string('destination', 64).notNullable();
    t.string('treasury', 64).nullable();
    // planned | sent | final | failed
    t.string('state', 16).notNullable();
    t.string('tx_id', 128).nullable();
    t.text('details').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('sent_at').nullable();
    t.bigInteger('final_at').nullable();
    t.index(['merchant_id', 'live', 'created_at']);
    t.index(['state']);
  });

  await knex.schema.createTable('payout_items', (t) => {
    t.string('payout_id', 40).notNullable().references('payouts.id');
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.string('gross', 80).notNullable();
    t.string('fee', 80).notNullable();
    t.string('net', 80).notNullable();
    t.primary(['payout_id', 'payment_id']);
    // A payment is paid out once.
    t.unique(['payment_id']);
  });

  await knex.schema.createTable('onchain_refunds', (t) => {
    t.string('id', 40).primary();
    t.string('payment_id', 40).notNullable().references('payments.id');
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.string('chain_caip2', 64).notNullable();
    t.string('asset_caip19', 160).notNullable();
    t.string('amount', 80).notNullable();
    // The paying address when it is the buyer's own; otherwise null until the buyer claims with an address.
    t.string('destination', 64).nullable();
    // SHA-256 of the one-time claim link's token; null when sent to the paying address.
    t.string('claim_token_hash', 64).nullable().unique();
    t.bigInteger('claim_expires_at').nullable();
    t.string('reason', 500).nullable();
    // awaiting_claim | planned | sent | final | failed
    t.string('state', 16).notNullable();
    t.string('tx_id', 128).nullable();
    t.text('details').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['payment_id']);
    t.index(['state']);
  });

  // One row per movement of money; balances are sums over it (server/src/settlement/ledger.ts).
  await knex.schema.createTable('ledger_entries', (t) => {
    t.increments('id').primary();
    // What makes an entry happen once (`received:<transfer id>`, `fee:<payment id>`): written with ON CONFLICT DO NOTHING.
    t.string('entry_key', 200).notNullable().unique();
    t.string('kind', 24).notNullable();
    t.string('merchant_id', 40).notNullable().references('merchants.id');
    t.boolean('live').notNullable();
    // The settlement mode the movement happened under: direct | collected.
    t.string('mode', 16).notNullable();
    t.string('chain_caip2', 64).notNullable();
    t.string('asset_caip19', 160).notNullable();
    t.string('amount', 80).notNullable();
    // The on-chain address the funds sit at after the movement (deposit, collection, treasury, merchant, buyer).
    t.string('address', 64).nullable();
    t.string('payment_id', 40).nullable();
    t.string('sweep_id', 40).nullable();
    t.string('payout_id', 40).nullable();
    t.string('refund_id', 40).nullable();
    t.string('tx_id', 128).nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['merchant_id', 'live', 'kind']);
    t.index(['payment_id']);
    t.index(['chain_caip2', 'address']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'ledger_entries',
    'onchain_refunds',
    'payout_items',
    'payouts',
    'sweeps',
    'scan_cursors',
    'deposit_transfers',
    'deposit_addresses',
    'deposit_accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('merchants', (t) => t.dropColumn('settlement_mode'));
}
