/**
 * Collected data at rest: sealed with the runtime's SecretBox (AES-256-GCM under PAYGATE_ENCRYPTION_KEY) and bound
 * to its payment, so a row copied onto another payment does not open. Nothing here logs the data.
 */
import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Database } from '../db/connect.js';
import { collectedDataExists, findCollectedData, upsertCollectedData } from '../db/queries/collectedData.js';
import type { CollectedData } from './schema.js';

export interface CollectStoreDeps {
  db: Database;
  secretBox: SecretBox;
  now: () => number;
}

/** The SecretBox context: what the ciphertext is, and whose. */
const contextOf = (paymentId: string) => `collected_data:${paymentId}`;

/** Stores (or replaces) the payment's data. Callers validate it first (`validateCollectedData`). */
export async function saveCollectedData(deps: CollectStoreDeps, paymentId: string, data: CollectedData): Promise<void> {
  await upsertCollectedData(deps.db.knex, {
    payment_id: paymentId,
    sealed: deps.secretBox.seal(JSON.stringify(data), contextOf(paymentId)),
    created_at: deps.now(),
  });
}

export async function hasCollectedData(knex: Knex | Knex.Transaction, paymentId: string): Promise<boolean> {
  return collectedDataExists(knex, paymentId);
}

/** The payment's data, decrypted, or null when none was given. For operators and tests; never for a log line. */
export async function readCollectedData(
  deps: Pick<CollectStoreDeps, 'db' | 'secretBox'>,
  paymentId: string,
): Promise<CollectedData | null> {
  const row = await findCollectedData(deps.db.knex, paymentId);
  if (!row) return null;
  return JSON.parse(deps.secretBox.open(row.sealed, contextOf(paymentId))) as CollectedData;
}
