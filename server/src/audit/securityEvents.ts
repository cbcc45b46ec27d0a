/**
 * Security events in the audit log (docs/decisions.md §21.1, issue 32 §6): 2FA activated or disabled, recovery codes
 * regenerated or used to sign in, a session revoked, an account locked by failed sign-ins. They concern a person,
 * not one merchant, so each is written to the log of every merchant the person belongs to, where its owners read it
 * (`listAuditLog`): mode null, actor the person. The facts are the ones the audit log already holds for a change
 * (actor, time, client address sealed, a target id); never a code, password or token.
 */
import type { Logger } from 'pino';
import { listMembershipsOfUser } from '../db/queries/users.js';
import type { SecurityEventSink } from '../users/usersDeps.js';
import { recordAudit, type AuditDeps } from './auditLog.js';

export function securityEventLog(deps: AuditDeps & { logger: Pick<Logger, 'error'> }): SecurityEventSink {
  return async (event) => {
    try {
      const memberships = await listMembershipsOfUser(deps.db.knex, event.userId);
      for (const { merchantId } of memberships) {
        await recordAudit(deps, {
          merchantId,
          mode: null,
          actor: { kind: 'user', id: event.userId },
          action: event.action,
          target: event.target,
          details: event.details,
          ip: event.ip,
        });
      }
    } catch (err) {
      deps.logger.error({ err, action: event.action }, 'audit entry not written');
    }
  };
}
