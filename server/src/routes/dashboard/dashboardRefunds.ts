import type { RequestHandler, Response } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardPrincipalOf } from '../../http/dashboardAuth.js';
import { parseIdempotencyKey } from '../../payments/idempotency.js';
import { refundOptions } from '../../settlement/refundOptions.js';
import type { RefundActor } from '../../settlement/refundPolicy.js';
import { cancelRefundClaim, refundJson, refundPayment, type RefundDeps } from '../../settlement/refunds.js';

type Ops = operations;
type PaymentPath = Ops['getDashboardRefundOptions']['parameters']['path'];
type Body = NonNullable<Ops['sendDashboardRefund']['requestBody']>['content']['application/json'] | undefined;

const scopeOf = (res: Response) => {
  const { merchantId, mode } = dashboardPrincipalOf(res);
  return { merchantId, live: mode === 'live' };
};

/**
 * Who sends the refund, for the refund policy: an owner may send what a key an owner allowed may (a claim link, an
 * amount above the threshold); a developer, or an API key acting on the dashboard (it acts as developer), only what
 * any merchant key may (docs/decisions.md §26.21).
 */
function actorOf(res: Response): RefundActor {
  const { actor, role } = dashboardPrincipalOf(res);
  return actor.kind === 'user'
    ? { kind: 'user', id: actor.userId, canRefund: role === 'owner' }
    : { kind: 'api_key', id: actor.keyId, canRefund: false };
}

/** The dashboard's on-chain refunds: the merchant API's `refundPayment` and `cancelRefund`, and what the page offers. */
export function dashboardRefundHandlers(deps: RefundDeps) {
  const options: RequestHandler<
    PaymentPath,
    Ops['getDashboardRefundOptions']['responses'][200]['content']['application/json']
  > = async (req, res) => {
    res.json(await refundOptions(deps, scopeOf(res), req.params.paymentId));
  };
  const send: RequestHandler<
    PaymentPath,
    Ops['sendDashboardRefund']['responses'][200]['content']['application/json'],
    Body
  > = async (req, res) => {
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    const body = req.body ?? {};
    const answer = await refundPayment(deps, scopeOf(res), req.params.paymentId, body, idempotencyKey, actorOf(res));
    if (answer.replayed) res.set('Idempotent-Replayed', 'true');
    const refund = answer.body.refund;
    // No address and no link in the audit entry: what moved and how it reaches the buyer.
    if (refund)
      res.locals.auditDetails = {
        refundId: refund.refund_id,
        amount: refund.amount.value,
        unit: refund.amount.unit,
        source: body.source ?? 'payment',
        destination: refund.claim_url ? 'claim_link' : 'paying_wallet',
      };
    res.status(answer.status).json(answer.body);
  };
  const cancel: RequestHandler<
    Ops['cancelDashboardRefund']['parameters']['path'],
    Ops['cancelDashboardRefund']['responses'][200]['content']['application/json']
  > = async (req, res) => {
    const row = await cancelRefundClaim(deps, scopeOf(res), req.params.refundId);
    res.locals.auditDetails = { paymentId: row.payment_id, refundId: row.id };
    res.json(refundJson(row));
  };
  return { getDashboardRefundOptions: options, sendDashboardRefund: send, cancelDashboardRefund: cancel };
}
