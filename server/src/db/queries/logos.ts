import type { Knex } from 'knex';

/** Where Paygate serves a merchant's logo; a merchant's `icon_url` is always under it (§26.23). */
export const LOGO_PATH_PREFIX = '/logos/';

/**
 * Only a logo Paygate serves (`/logos/…`, docs/decisions.md §26.23) is the merchant's icon. Migration 024 cleared the
 * remote URLs, but a process of an older release still serving during an upgrade can write one again: read as none,
 * it never reaches a checkout or a wallet.
 */
export function servedLogo(iconUrl: string | null): string | null {
  return iconUrl !== null && iconUrl.startsWith(LOGO_PATH_PREFIX) ? iconUrl : null;
}

/** A merchant's logo as stored (migration 024): the cleaned bytes and the hash its URL is named by. */
export interface LogoRow {
  merchant_id: string;
  sha256: string;
  content_type: string;
  width: number;
  height: number;
  bytes: Buffer;
  created_at: number;
}

/** One logo per merchant: a new upload replaces the old row. */
export async function upsertLogo(db: Knex | Knex.Transaction, row: LogoRow): Promise<void> {
  await db('merchant_logos')
    .insert(row)
    .onConflict('merchant_id')
    .merge(['sha256', 'content_type', 'width', 'height', 'bytes', 'created_at']);
}

export async function deleteLogo(db: Knex | Knex.Transaction, merchantId: string): Promise<void> {
  await db('merchant_logos').where({ merchant_id: merchantId }).delete();
}

/** The bytes named by a hash; any merchant's row with that hash holds the same bytes. */
export async function findLogoByHash(
  db: Knex | Knex.Transaction,
  sha256: string,
): Promise<Pick<LogoRow, 'content_type' | 'bytes'> | null> {
  const row = (await db('merchant_logos').where({ sha256 }).first('content_type', 'bytes')) as
    Pick<LogoRow, 'content_type' | 'bytes'> | undefined;
  return row ? { content_type: row.content_type, bytes: Buffer.from(row.bytes) } : null;
}
