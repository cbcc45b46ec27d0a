import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { posAuthOf } from '../../http/posAuth.js';
import { readPosSale, type PosSaleDeps } from '../../pos/sales.js';

type Operation = operations['getPosPayment'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/gateway/pos/{posId}/payments/{id} */
export function getPosPaymentHandler(deps: PosSaleDeps): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    res.json(await readPosSale(deps, posAuthOf(res).terminal, req.params.id));
  };
}
