import type { RequestHandler } from 'express';
import { auditRefund } from '../../audit/merchantApiAudit.js';
import type { AuditDeps } from '../../audit/auditLog.js';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { parseIdempotencyKey } from '../../payments/idempotency.js';
import { refundPayment, type RefundDeps } from '../../settlement/refunds.js';

type Operation = operations['refundPayment'];
type Body = NonNullable<Operation['requestBody']>['content']['application/json'] | undefined;
type Ok = Operation['responses'][200]['content']['application/json'];

/**
 * POST /v1/merchant/payment/{id}/refund: an on-chain refund for a payment settled in collected mode, otherwise the
 * record of an off-platform refund (the body is optional). An on-chain refund is audited with the key that asked.
 */
export function refundPaymentHandler(
  deps: RefundDeps & AuditDeps,
): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    const actor = { kind: 'api_key' as const, id: auth.key.id, canRefund: auth.key.can_refund };
    const answer = await refundPayment(deps, scope, req.params.id, req.body ?? {}, idempotencyKey, actor);
    if (answer.replayed) res.set('Idempotent-Replayed', 'true');
    else if (answer.body.refund)
      await auditRefund(deps, { ...scope, keyId: auth.key.id }, 'refundPayment', req.params.id, answer.body.refund);
    res.status(answer.status).json(answer.body);
  };
}
