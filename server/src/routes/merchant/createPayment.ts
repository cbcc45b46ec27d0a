import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { parseIdempotencyKey } from '../../payments/idempotency.js';
import { createMerchantPayment, type MerchantDeps } from '../../payments/merchantPayments.js';

type Operation = operations['createPayment'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/** POST /v1/merchant/payment */
export function createPaymentHandler(deps: MerchantDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    const answer = await createMerchantPayment(deps, scope, req.body, idempotencyKey);
    if (answer.replayed) res.set('Idempotent-Replayed', 'true');
    res.status(answer.status).json(answer.body);
  };
}
