/**
 * `paygate admin rotate-encryption-key`: after a new key is put first in PAYGATE_ENCRYPTION_KEY (`k2:…,k1:…`), re-seals
 * every value still under another key; `--check` only counts them, so an operator knows when the old key can go.
 */
import { countUnderOtherKeys, rotateEncryptionKey } from '../db/queries/sealedRows.js';
import { emailHashOf } from '../users/userAccounts.js';
import { emit, table, withUsers, type CliIo } from './common.js';

export async function rotateEncryptionKeyCommand(
  io: CliIo,
  options: { check: boolean; batch: number; json: boolean },
): Promise<number> {
  const result = await withUsers(io, async (deps) => {
    const reseal = { db: deps.db, secretBox: deps.secretBox, emailHash: (email: string) => emailHashOf(deps, email) };
    const changed = options.check ? null : await rotateEncryptionKey(reseal, options.batch);
    return { activeKeyId: deps.secretBox.activeKeyId, changed, remaining: await countUnderOtherKeys(reseal) };
  });
  const left = Object.values(result.remaining).reduce((a, b) => a + b, 0);
  const rows = Object.keys(result.remaining).map((t) => [
    t,
    ...(result.changed ? [String(result.changed[t] ?? 0)] : []),
    String(result.remaining[t]),
  ]);
  const header = ['table', ...(result.changed ? ['re-sealed'] : []), 'under other keys'];
  const verdict = left
    ? `${left} row(s) still under keys other than "${result.activeKeyId}": keep the old keys.`
    : `Every row is under "${result.activeKeyId}": the other keys can be removed.`;
  emit(io, options.json, result, `${table(header, rows)}\n${verdict}`);
  // --check exits 1 while rows remain, so a script can wait for 0 before removing the old key.
  return options.check && left > 0 ? 1 : 0;
}
