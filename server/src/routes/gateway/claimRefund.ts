import type { RequestHandler } from 'express';
import type { BuyerPaymentDeps } from '../../checkout/buyerPayments.js';
import type { operations } from '../../generated/gateway.js';
import { claimRefund } from '../../settlement/refunds.js';
import { refundClaimJson } from './lookupRefundClaim.js';

type Operation = operations['claimRefund'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/gateway/refund-claims/claim (no credentials: the token in the body is the capability) */
export function claimRefundHandler(deps: BuyerPaymentDeps): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    res.json(refundClaimJson(deps, await claimRefund(deps, req.body.token, req.body.address)));
  };
}
