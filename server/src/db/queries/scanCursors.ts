import type { Knex } from 'knex';

/** Where detection resumes on a chain (an opaque cursor its scanner answered); null before the first scan. */
export async function readScanCursor(db: Knex | Knex.Transaction, chain: string): Promise<string | null> {
  const row = (await db('scan_cursors').where({ chain_caip2: chain }).first('next_block')) as
    { next_block: string } | undefined;
  return row?.next_block ?? null;
}

/**
 * Moves the cursor from `from` to `to`, only if it still is at `from` (compare and set): of two scans of one chain
 * that overlap (two processes), the first to commit moves it, and the other's move changes nothing. Answers whether
 * this one moved it.
 */
export async function advanceScanCursor(
  db: Knex | Knex.Transaction,
  chain: string,
  from: string | null,
  to: string,
  now: number,
): Promise<boolean> {
  if (from === null) {
    const rows = (await db('scan_cursors')
      .insert({ chain_caip2: chain, next_block: to, updated_at: now })
      .onConflict('chain_caip2')
      .ignore()
      .returning('chain_caip2')) as unknown[];
    return rows.length === 1;
  }
  const moved = await db('scan_cursors')
    .where({ chain_caip2: chain, next_block: from })
    .update({ next_block: to, updated_at: now });
  return moved === 1;
}
