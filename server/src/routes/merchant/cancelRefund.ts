import type { RequestHandler } from 'express';
import { auditRefund } from '../../audit/merchantApiAudit.js';
import type { AuditDeps } from '../../audit/auditLog.js';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { cancelRefundClaim, refundJson } from '../../settlement/refunds.js';

type Operation = operations['cancelRefund'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/merchant/refunds/{id}/cancel: withdraws an unclaimed refund link, giving its amount back; audited. */
export function cancelRefundHandler(
  deps: LifecycleDeps & AuditDeps,
): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    const row = await cancelRefundClaim(deps, scope, req.params.id);
    const refund = refundJson(row);
    await auditRefund(deps, { ...scope, keyId: auth.key.id }, 'cancelRefund', row.payment_id, refund);
    res.json(refund);
  };
}
