/** Rows of the dashboard's audit log (migration 006): who changed what, when, from where. */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface AuditRow {
  id: string;
  merchant_id: string;
  mode: 'test' | 'live' | null;
  at: number;
  actor_kind: 'user' | 'api_key';
  actor_id: string;
  action: string;
  target: string | null;
  details_sealed: string | null;
  ip_sealed: string | null;
}

export async function insertAuditRow(db: Db, row: AuditRow): Promise<void> {
  await db('audit_log').insert(row);
}
