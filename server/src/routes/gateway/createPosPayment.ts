import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { posAuthOf } from '../../http/posAuth.js';
import { createPosSale, type PosSaleDeps } from '../../pos/sales.js';

type Operation = operations['createPosPayment'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/gateway/pos/{posId}/payments */
export function createPosPaymentHandler(
  deps: PosSaleDeps,
): RequestHandler<Operation['parameters']['path'], Created, Body> {
  return async (req, res) => {
    res.status(201).json(await createPosSale(deps, posAuthOf(res).terminal, req.body));
  };
}
