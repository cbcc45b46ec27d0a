import type { Knex } from 'knex';

/** Facts about the installation checked at start (`settings`, migration 013): one text value per key. */
export async function readSetting(db: Knex | Knex.Transaction, key: string): Promise<string | null> {
  const row = (await db('settings').where({ key }).first('value')) as { value: string } | undefined;
  return row?.value ?? null;
}

/** Writes the value unless the key has one: two processes starting at once keep the first; both then read it. */
export async function insertSettingOnce(
  db: Knex | Knex.Transaction,
  key: string,
  value: string,
  now: number,
): Promise<void> {
  await db('settings').insert({ key, value, updated_at: now }).onConflict('key').ignore();
}

/** Replaces the value (a deliberate change the operator acknowledged). */
export async function writeSetting(
  db: Knex | Knex.Transaction,
  key: string,
  value: string,
  now: number,
): Promise<void> {
  await db('settings').insert({ key, value, updated_at: now }).onConflict('key').merge(['value', 'updated_at']);
}
