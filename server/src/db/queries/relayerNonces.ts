import type { Knex } from 'knex';
import type { Database } from '../connect.js';
import { dialectOf } from '../dialect.js';

/**
 * Takes the relayer's row lock (PostgreSQL; SQLite serialises writers anyway) inside the caller's transaction, so
 * one relay at a time, in any process, picks a nonce and sends. Answers the last nonce recorded, for diagnostics.
 */
async function lockRelayerNonce(trx: Knex.Transaction, chain: string, address: string): Promise<bigint> {
  await trx('relayer_nonces')
    .insert({ chain_caip2: chain, address, next_nonce: 0 })
    .onConflict(['chain_caip2', 'address'])
    .ignore();
  let query = trx('relayer_nonces').where({ chain_caip2: chain, address }).first('next_nonce');
  if (dialectOf(trx) === 'postgres') query = query.forUpdate();
  const row = (await query) as { next_nonce: number | string };
  return BigInt(row.next_nonce);
}

async function storeRelayerNonce(trx: Knex.Transaction, chain: string, address: string, next: bigint): Promise<void> {
  await trx('relayer_nonces').where({ chain_caip2: chain, address }).update({ next_nonce: next.toString() });
}

/**
 * The relayer's turn: runs `send`, which picks the relayer's nonce and submits a transaction, so that no other relay
 * sends at the same time, then records the nonce after the one it used. The caller runs one relay at a time per
 * relayer in its own process.
 */
export async function inRelayerTurn<T extends { nonce: bigint }>(
  db: Database,
  chain: string,
  address: string,
  send: () => Promise<T>,
): Promise<T> {
  if (dialectOf(db) === 'sqlite') {
    // One process owns an SQLite file (the embedded job runner assumes it too, and `paygate worker` refuses SQLite),
    // so the caller's in-process turn is the lock. A transaction around the send would hold the process's only
    // connection, and every request waiting on it, for the length of an RPC call.
    const sent = await send();
    await db.knex.transaction(async (trx) => {
      await lockRelayerNonce(trx, chain, address);
      await storeRelayerNonce(trx, chain, address, sent.nonce + 1n);
    });
    return sent;
  }
  return db.knex.transaction(async (trx) => {
    // The lock serialises relays of every process; under it the node's pending count is the next nonce, because
    // the previous holder's transaction was in the node's pool before it let go. A count kept only in the database
    // would open a gap that stalls every later relay when the node drops a transaction (or a dev chain is reset).
    await lockRelayerNonce(trx, chain, address);
    const sent = await send();
    await storeRelayerNonce(trx, chain, address, sent.nonce + 1n);
    return sent;
  });
}
