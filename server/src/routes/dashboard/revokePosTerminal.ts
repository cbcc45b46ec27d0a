import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { revokePosTerminal, type PosDeps } from '../../pos/terminals.js';

type Operation = operations['revokePosTerminal'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** DELETE /v1/dashboard/pos-terminals/{posId} */
export function revokePosTerminalHandler(deps: PosDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const revoked = await revokePosTerminal(deps, merchantId, mode, req.params.posId);
    res.locals.auditDetails = { posId: revoked.id, prefix: revoked.keyPrefix };
    res.json(revoked);
  };
}
