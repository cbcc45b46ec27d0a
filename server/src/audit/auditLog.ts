/**
 * The dashboard's audit log: one row per successful change made for a merchant through the dashboard API, with a
 * session or an API key, written centrally by the dashboard authentication (http/dashboardAuth.ts), and by
 * team/invitations.ts for an accepted invitation (an open operation has no merchant principal); owners read it with
 * `listAudit`. The client address and the details are sealed (context `audit_log.<column>:<id>`); details hold
 * non-secret facts only.
 */
import {
  findAuditRow,
  insertAuditRow,
  keyPrefixesOf,
  listAuditRows,
  sealedEmailsOf,
  type AuditRow,
} from '../db/queries/auditRows.js';
import { ApiError } from '../errors.js';
import type { operations } from '../generated/dashboard.js';
import { newId } from '../ids.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Database } from '../db/connect.js';

/** What the audit log needs: where it writes, the clock, and the box that seals its details. */
export interface AuditDeps {
  db: Database;
  now: () => number;
  secretBox: SecretBox;
}

// The contexts recordAudit seals with, and the users' (users/userAccounts.ts): `<table>.<column>:<row id>`.
const detailsContext = (id: string) => `audit_log.details_sealed:${id}`;
const ipContext = (id: string) => `audit_log.ip_sealed:${id}`;
const emailContext = (userId: string) => `users.email_sealed:${userId}`;

export interface AuditEntry {
  merchantId: string;
  mode: 'test' | 'live' | null;
  /** `operator`: `paygate admin` on the server (id `cli`): no user or key, the shell's owner. */
  actor: { kind: 'user' | 'api_key' | 'operator'; id: string };
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
}

export async function recordAudit(runtime: AuditDeps, entry: AuditEntry): Promise<void> {
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
      entry.details === null ? null : runtime.secretBox.seal(JSON.stringify(entry.details), detailsContext(id)),
    ip_sealed: entry.ip === null ? null : runtime.secretBox.seal(entry.ip, ipContext(id)),
  });
}

// Typed through the operations, whose ids every version of the contract shares, not through schema names.
export type AuditLogPage = operations['listAuditLog']['responses'][200]['content']['application/json'];
type AuditLogEntry = AuditLogPage['data'][number];

/** The label of an actor that no longer exists (a user row or key row is never deleted today; this is a guard). */
const UNKNOWN_ACTOR = '(deleted)';
const OPERATOR_LABEL = 'paygate admin';

/** One page of the merchant's audit log, newest first, opened for an owner to read. */
export async function listAudit(
  runtime: AuditDeps,
  merchantId: string,
  page: { limit?: number; startingAfter?: string },
): Promise<AuditLogPage> {
  const limit = page.limit ?? 20;
  const db = runtime.db.knex;
  let after: { at: number; id: string } | undefined;
  if (page.startingAfter !== undefined) {
    const cursor = await findAuditRow(db, merchantId, page.startingAfter);
    if (!cursor) {
      throw new ApiError('invalid_params', `startingAfter: no audit log entry with id ${page.startingAfter}.`, {
        status: 404,
      });
    }
    after = { at: cursor.at, id: cursor.id };
  }
  // One row more than asked tells whether another page follows.
  const rows = await listAuditRows(db, merchantId, { limit: limit + 1, startingAfter: after });
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  const userIds = [...new Set(shown.filter((r) => r.actor_kind === 'user').map((r) => r.actor_id))];
  const keyIds = [...new Set(shown.filter((r) => r.actor_kind === 'api_key').map((r) => r.actor_id))];
  const [emails, prefixes] = await Promise.all([sealedEmailsOf(db, userIds), keyPrefixesOf(db, keyIds)]);
  const labelOf = (row: AuditRow): string => {
    if (row.actor_kind === 'api_key') return prefixes.get(row.actor_id) ?? UNKNOWN_ACTOR;
    if (row.actor_kind === 'operator') return OPERATOR_LABEL;
    const sealed = emails.get(row.actor_id);
    return sealed ? runtime.secretBox.open(sealed, emailContext(row.actor_id)) : UNKNOWN_ACTOR;
  };
  const data: AuditLogEntry[] = shown.map((row) => ({
    id: row.id,
    at: Math.floor(row.at / 1000),
    actor: { kind: row.actor_kind, id: row.actor_id, label: labelOf(row) },
    action: row.action,
    target: row.target,
    mode: row.mode,
    ip: row.ip_sealed ? runtime.secretBox.open(row.ip_sealed, ipContext(row.id)) : null,
    details: row.details_sealed
      ? (JSON.parse(runtime.secretBox.open(row.details_sealed, detailsContext(row.id))) as Record<string, unknown>)
      : null,
  }));
  return { data, hasMore, nextCursor: hasMore ? shown[shown.length - 1]!.id : null };
}
