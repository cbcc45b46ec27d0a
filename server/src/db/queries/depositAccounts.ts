import type { Knex } from 'knex';

/**
 * Deposit accounts (one derivation index per payment) and the addresses derived from them (docs/decisions.md §22.2).
 * Every write is an insert that does nothing when the row exists, then a read: two requests racing for the same
 * payment both read the one row that won, on either database.
 */

export interface DepositAddressRow {
  chain: string;
  address: string;
  paymentId: string;
  derivationIndex: number;
}

/** The payment's derivation index, allocated on first call (`deposit_accounts`). */
export async function allocateDerivationIndex(
  db: Knex | Knex.Transaction,
  paymentId: string,
  now: number,
): Promise<number> {
  await db('deposit_accounts').insert({ payment_id: paymentId, created_at: now }).onConflict('payment_id').ignore();
  const row = (await db('deposit_accounts').where({ payment_id: paymentId }).first('derivation_index')) as
    { derivation_index: number | string } | undefined;
  if (!row) throw new Error(`deposit account of ${paymentId} missing right after its insert`);
  return Number(row.derivation_index);
}

/**
 * Records a derived address; a repeat (same chain and address, or the payment's address on that chain already
 * recorded) writes nothing. Answers the address stored for the payment on that chain: the one detection watches,
 * which differs from `row.address` only if the deposit seed changed (settlement/collected/deposits.ts says so).
 */
export async function insertDepositAddress(
  db: Knex | Knex.Transaction,
  row: DepositAddressRow & { createdAt: number },
): Promise<string> {
  await db('deposit_addresses')
    .insert({
      chain_caip2: row.chain,
      address: row.address,
      payment_id: row.paymentId,
      derivation_index: row.derivationIndex,
      created_at: row.createdAt,
    })
    .onConflict()
    .ignore();
  const stored = (await db('deposit_addresses')
    .where({ payment_id: row.paymentId, chain_caip2: row.chain })
    .first('address')) as { address: string } | undefined;
  // Not the payment's: the address is another payment's (two seeds deriving one address is not a thing that happens).
  if (!stored) throw new Error(`deposit address ${row.address} on ${row.chain} is recorded for another payment`);
  return stored.address;
}

export async function listDepositAddresses(
  db: Knex | Knex.Transaction,
  paymentId: string,
): Promise<DepositAddressRow[]> {
  const rows = (await db('deposit_addresses')
    .where({ payment_id: paymentId })
    .orderBy('chain_caip2')
    .select('chain_caip2', 'address', 'payment_id', 'derivation_index')) as {
    chain_caip2: string;
    address: string;
    payment_id: string;
    derivation_index: number | string;
  }[];
  return rows.map((r) => ({
    chain: r.chain_caip2,
    address: r.address,
    paymentId: r.payment_id,
    derivationIndex: Number(r.derivation_index),
  }));
}

/**
 * What the payment's deposit addresses received, by CAIP-19 asset, counting every transfer detection saw that a
 * reorg has not removed (seen or final). Amounts are summed here with BigInt: they are decimal strings in storage.
 */
export async function receivedByAsset(db: Knex | Knex.Transaction, paymentId: string): Promise<Map<string, bigint>> {
  const rows = (await db('deposit_transfers')
    .where({ payment_id: paymentId })
    .whereNot({ state: 'reorged' })
    .select('asset_caip19', 'amount')) as { asset_caip19: string; amount: string }[];
  const totals = new Map<string, bigint>();
  for (const r of rows) totals.set(r.asset_caip19, (totals.get(r.asset_caip19) ?? 0n) + BigInt(r.amount));
  return totals;
}
