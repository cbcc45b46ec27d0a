/**
 * The dashboard's audit log: one row per successful change made for a merchant through the dashboard API, with a
 * session or an API key, written centrally by the dashboard authentication (http/dashboardAuth.ts). The client
 * address and the details are sealed (context `audit_log.<column>:<id>`); details hold non-secret facts only.
 */
import { insertAuditRow } from '../db/queries/auditEntries.js';
import { newId } from '../ids.js';
import type { Runtime } from '../runtime.js';

export interface AuditEntry {
  merchantId: string;
  mode: 'test' | 'live' | null;
  actor: { kind: 'user' | 'api_key'; id: string };
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
}

export async function recordAudit(runtime: Runtime, entry: AuditEntry): Promise<void> {
  const id = newId.audit();
  await insertAuditRow(runtime.db.knex, {
    id,
    merchant_id: entry.merchantId,
    mode: entry.mode,
    at: runtime.now(),
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.id,
    action: entry.action.slice(0, 80),
    target: entry.target === null ? null : entry.target.slice(0, 300),
    details_sealed:
      entry.details === null
        ? null
        : runtime.secretBox.seal(JSON.stringify(entry.details), `audit_log.details_sealed:${id}`),
    ip_sealed: entry.ip === null ? null : runtime.secretBox.seal(entry.ip, `audit_log.ip_sealed:${id}`),
  });
}
