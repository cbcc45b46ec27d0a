import type { Knex } from 'knex';

/**
 * Takes the relayer's row lock (PostgreSQL; SQLite serialises writers anyway) inside the caller's transaction, so
 * one relay at a time, in any process, picks a nonce and sends. Answers the last nonce recorded, for diagnostics.
 */
export async function lockRelayerNonce(trx: Knex.Transaction, chain: string, address: string): Promise<bigint> {
  await trx('relayer_nonces')
    .insert({ chain_caip2: chain, address, next_nonce: 0 })
    .onConflict(['chain_caip2', 'address'])
    .ignore();
  let query = trx('relayer_nonces').where({ chain_caip2: chain, address }).first('next_nonce');
  if (trx.client.config.client === 'pg') query = query.forUpdate();
  const row = (await query) as { next_nonce: number | string };
  return BigInt(row.next_nonce);
}

export async function storeRelayerNonce(
  trx: Knex.Transaction,
  chain: string,
  address: string,
  next: bigint,
): Promise<void> {
  await trx('relayer_nonces').where({ chain_caip2: chain, address }).update({ next_nonce: next.toString() });
}
