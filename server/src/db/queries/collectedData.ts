import type { Knex } from 'knex';

export interface CollectedDataRow {
  payment_id: string;
  /** SecretBox ciphertext of the JSON data, bound to the payment id. */
  sealed: string;
  created_at: number;
}

/** One row per payment: a later answer (the buyer corrected the form) replaces the earlier one. */
export async function upsertCollectedData(db: Knex | Knex.Transaction, row: CollectedDataRow): Promise<void> {
  await db('collected_data').insert(row).onConflict('payment_id').merge(['sealed', 'created_at']);
}

export async function findCollectedData(
  db: Knex | Knex.Transaction,
  paymentId: string,
): Promise<CollectedDataRow | null> {
  const raw = (await db('collected_data').where({ payment_id: paymentId }).first()) as CollectedDataRow | undefined;
  return raw ? { ...raw, created_at: Number(raw.created_at) } : null;
}

export async function collectedDataExists(db: Knex | Knex.Transaction, paymentId: string): Promise<boolean> {
  return (await db('collected_data').select('payment_id').where({ payment_id: paymentId }).first()) !== undefined;
}
