import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { listPosTerminals, type PosDeps } from '../../pos/terminals.js';

type Operation = operations['listPosTerminals'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/dashboard/pos-terminals */
export function listPosTerminalsHandler(deps: PosDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    res.json({ data: await listPosTerminals(deps, merchantId, mode) });
  };
}
