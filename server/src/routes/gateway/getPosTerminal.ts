import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { posAuthOf } from '../../http/posAuth.js';
import { terminalInfo } from '../../pos/terminals.js';

type Operation = operations['getPosTerminal'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/gateway/pos/{posId}: what the screen rings up with (the key was checked against this terminal) */
export function getPosTerminalHandler(): RequestHandler<Operation['parameters']['path'], Ok> {
  return (_req, res) => {
    const { terminal, merchantName, merchantLogoUrl } = posAuthOf(res);
    const { id, name, mode, currency, catalogue, tipPercents } = terminalInfo(terminal);
    res.json({ id, name, merchantName, merchantLogoUrl, mode, currency, catalogue, tipPercents });
  };
}
