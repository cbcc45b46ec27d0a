/**
 * `paygate admin rotate-encryption-key`: after a new key is put first in PAYGATE_ENCRYPTION_KEY (`k2:…,k1:…`), re-seals
 * every value still under another key; `--check` only counts them, so an operator knows when the old key can go.
 */
import { countUnderOtherKeys, openEverySealed, rotateEncryptionKey } from '../db/queries/sealedRows.js';
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

/**
 * `paygate admin verify-secrets`: opens every sealed value with the configured keys and writes nothing. Run after a
 * restore (is this the database's PAYGATE_ENCRYPTION_KEY?) and before removing an old key. Names each value that
 * does not open by table, column and row, never its content.
 */
export async function verifySecretsCommand(io: CliIo, options: { json: boolean }): Promise<number> {
  const result = await withUsers(io, (deps) => openEverySealed({ db: deps.db, secretBox: deps.secretBox }));
  const opened = Object.values(result.opened).reduce((a, b) => a + b, 0);
  const rows = Object.keys(result.opened).map((t) => [
    t,
    String(result.opened[t]),
    String(result.failed.filter((f) => f.table === t).length),
  ]);
  const failures = result.failed.map((f) => `  ${f.table}.${f.column} of ${f.row}`).join('\n');
  const verdict = result.failed.length
    ? `${result.failed.length} sealed value(s) do not open with the configured keys:\n${failures}`
    : `All ${opened} sealed values open with the configured keys.`;
  emit(io, options.json, result, `${table(['table', 'opened', 'failed'], rows)}\n${verdict}`);
  return result.failed.length ? 1 : 0;
}
