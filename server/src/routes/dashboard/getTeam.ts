import type { RequestHandler } from 'express';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';
import { getTeam, type Team, type TeamDeps } from '../../team/team.js';

/** GET /v1/dashboard/team */
export function getTeamHandler(deps: TeamDeps): RequestHandler<Record<string, never>, Team> {
  return async (_req, res) => {
    res.json(await getTeam(deps, dashboardPrincipalOf(res).merchantId));
  };
}
