import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { parseIdempotencyKey } from '../../payments/idempotency.js';
import { createMerchantPayment, type MerchantDeps } from '../../payments/merchantPayments.js';

type Operation = operations['createPaymentAlias'];
type Body = Operation['requestBody']['content']['application/json'];
type Created = Operation['responses'][201]['content']['application/json'];

/**
 * POST /v1/payments, WalletConnect Pay's path for `createPayment` (docs/decisions.md §28): the same payment, key and
 * idempotency record; only the new payment's status takes WalletConnect's name (a new payment is always pending).
 */
export function createPaymentAliasHandler(deps: MerchantDeps): RequestHandler<Record<string, never>, Created, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    const answer = await createMerchantPayment(deps, scope, req.body, idempotencyKey);
    if (answer.replayed) res.set('Idempotent-Replayed', 'true');
    const { status, ...rest } = answer.body;
    res.status(answer.status).json({ ...rest, status: status === 'pending' ? 'requires_action' : status });
  };
}
