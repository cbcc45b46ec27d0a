import type { RequestHandler } from 'express';
import { listAudit, type AuditDeps, type AuditLogPage } from '../../audit/auditLog.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';

type Query = NonNullable<operations['listAuditLog']['parameters']['query']>;

/** GET /v1/dashboard/audit-log */
export function listAuditLogHandler(
  deps: AuditDeps,
): RequestHandler<Record<string, never>, AuditLogPage, unknown, Query> {
  return async (req, res) => {
    res.json(await listAudit(deps, dashboardPrincipalOf(res).merchantId, req.query));
  };
}
