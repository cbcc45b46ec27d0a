import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { createPosTerminal, type PosDeps } from '../../pos/terminals.js';

type Operation = operations['createPosTerminal'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/dashboard/pos-terminals: 201 with the POS access key, shown once (never logged, never audited) */
export function createPosTerminalHandler(deps: PosDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const created = await createPosTerminal(deps, merchantId, mode, req.body);
    res.locals.auditDetails = { posId: created.terminal.id, prefix: created.terminal.keyPrefix, mode };
    res.status(201).json(created);
  };
}
