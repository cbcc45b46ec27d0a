import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import { cancelledReason } from '../../payments/cancelledReason.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { cancelMerchantPayment } from '../../payments/merchantPayments.js';

type Operation = operations['cancelPaymentAlias'];
type Body = NonNullable<Operation['requestBody']>['content']['application/json'] | undefined;
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/payments/{id}/cancel: `cancelPayment`, answered in WalletConnect Pay's shape (docs/decisions.md §28) */
export function cancelPaymentAliasHandler(
  deps: LifecycleDeps,
): RequestHandler<Operation['parameters']['path'], Ok, Body> {
  return async (req, res) => {
    const auth = merchantAuthOf(res);
    const scope = { merchantId: auth.merchant.id, live: auth.live };
    const payment = await cancelMerchantPayment(deps, scope, req.params.id, req.body?.reason);
    if (!payment.cancelled) throw new Error(`payment ${payment.payment_id} answered a cancel without its cancellation`);
    res.json({
      paymentId: payment.payment_id,
      status: payment.status,
      cancelledReason: cancelledReason(payment.cancelled.cancelled_by),
      cancelledAt: payment.cancelled.cancelled_at,
    });
  };
}
