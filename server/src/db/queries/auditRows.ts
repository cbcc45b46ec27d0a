/** The audit log (migration 006): one row per change made through the dashboard API; details and ip sealed. */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface AuditRow {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live' | null;
  at: number;
  actor_kind: 'user' | 'api_key' | 'operator';
  actor_id: string;
  action: string;
  target: string | null;
  details_sealed: string | null;
  ip_sealed: string | null;
}

function auditFromRaw(raw: Record<string, unknown>): AuditRow {
  return { ...(raw as unknown as AuditRow), at: Number(raw.at) };
}

export async function insertAuditRow(db: Db, row: AuditRow): Promise<void> {
  await db('audit_log').insert(row);
}

export async function findAuditRow(db: Db, merchantId: string, id: string): Promise<AuditRow | null> {
  const raw = await db('audit_log').where({ merchant_id: merchantId, id }).first();
  return raw ? auditFromRaw(raw) : null;
}

/** The merchant's entries, newest first (by time, then id), after the `startingAfter` entry when given. */
export async function listAuditRows(
  db: Db,
  merchantId: string,
  page: { limit: number; startingAfter?: { at: number; id: string } },
): Promise<AuditRow[]> {
  const q = db('audit_log').where({ merchant_id: merchantId });
  if (page.startingAfter) {
    const { at, id } = page.startingAfter;
    // A row comparison: PostgreSQL takes it as a bound of audit_log_list_idx, so a deep page starts at its cursor
    // (docs/decisions.md §24.1, §24.5).
    q.andWhereRaw('(at, id) < (?, ?)', [at, id]);
  }
  const rows = (await q
    .orderBy([
      { column: 'at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit)) as Record<string, unknown>[];
  return rows.map(auditFromRaw);
}

/** The sealed emails of the given users, by id (for the actors' labels). */
export async function sealedEmailsOf(db: Db, userIds: string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = (await db('users').select('id', 'email_sealed').whereIn('id', userIds)) as {
    id: string;
    email_sealed: string;
  }[];
  return new Map(rows.map((r) => [r.id, r.email_sealed]));
}

/** The display prefixes of the given API keys, by id (for the actors' labels). */
export async function keyPrefixesOf(db: Db, keyIds: string[]): Promise<Map<string, string>> {
  if (keyIds.length === 0) return new Map();
  const rows = (await db('api_keys').select('id', 'prefix').whereIn('id', keyIds)) as { id: string; prefix: string }[];
  return new Map(rows.map((r) => [r.id, r.prefix]));
}
