import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';
import { updateMember, type TeamDeps } from '../../team/team.js';

type Operation = operations['updateMember'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** PATCH /v1/dashboard/team/members/{userId} */
export function updateMemberHandler(deps: TeamDeps): RequestHandler<{ userId: string }, Ok, Body> {
  return async (req, res) => {
    const { merchantId } = dashboardPrincipalOf(res);
    const { member, previousRole } = await updateMember(deps, merchantId, req.params.userId, req.body.role);
    res.locals.auditDetails = { role: member.role, previousRole };
    res.json(member);
  };
}
