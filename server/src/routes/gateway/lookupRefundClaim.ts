import type { RequestHandler } from 'express';
import { assetDisplay, type BuyerPaymentDeps } from '../../checkout/buyerPayments.js';
import type { operations } from '../../generated/gateway.js';
import { lookupRefundClaim, type RefundClaim } from '../../settlement/refunds.js';

type Operation = operations['lookupRefundClaim'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** The claim page's view of a refund: its amount described as the checkout describes amounts. */
export function refundClaimJson(deps: Pick<BuyerPaymentDeps, 'chains'>, claim: RefundClaim): Ok {
  const unit = `caip19/${claim.asset}`;
  return {
    refundId: claim.refundId,
    amount: { unit, value: claim.amount, display: assetDisplay(deps.chains, unit) },
    chain: claim.chain,
    state: claim.state,
    destination: claim.destination,
    claimExpiresAt: claim.claimExpiresAt,
  };
}

/** POST /v1/gateway/refund-claims/lookup (no credentials: the token in the body is the capability) */
export function lookupRefundClaimHandler(deps: BuyerPaymentDeps): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    res.json(refundClaimJson(deps, await lookupRefundClaim(deps, req.body.token)));
  };
}
